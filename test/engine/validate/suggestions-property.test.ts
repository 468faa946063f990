// Suggestions ("did you mean") and the declaration fix answer as the plain quadratic versions did:
// those are kept here as the oracle, and random words and graphs are checked against them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Diagnostic } from '../../../engine/model/diagnostics';
import type { Graph } from '../../../engine/model/graph';
import { dotId } from '../../../engine/model/dot-text';
import { LineIndex } from '../../../engine/model/source';
import { parseDot } from '../../../engine/parse/dot-parser';
import { Speller, closestCandidates, editDistance } from '../../../engine/validate/did-you-mean';
import { byRule, lintText } from './lint-helpers';

/** The suggestion search as it was: every candidate compared with the word, the full distance table each time. */
function plainClosest(word: string, candidates: Iterable<string>): string[] {
  let closest: string[] = [];
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    if (Math.abs(candidate.length - word.length) > 2) continue;
    const distance = editDistance(word, candidate);
    if (distance > 2 || distance * 2 >= Math.max(word.length, candidate.length) || distance > bestDistance) continue;
    if (distance < bestDistance) {
      closest = [];
      bestDistance = distance;
    }
    if (!closest.includes(candidate)) closest.push(candidate);
  }
  return closest;
}

/** The declaration fix as it was: the last top-level node statement searched for every undeclared node. */
function plainDeclareFix(text: string, graph: Graph, id: string) {
  const statements = [...graph.nodes.values()].filter((node) => node.subgraphs.length === 0).flatMap((node) => node.declarations);
  const last = statements.reduce<{ start: number; end: number } | undefined>((latest, range) => (!latest || range.end > latest.end ? range : latest), undefined);
  const body = text.indexOf('{', graph.range.start);
  if (body < 0) return undefined;
  const anchor = last ? last.end : body + 1;
  const lineEnd = text.indexOf('\n', anchor);
  const at = lineEnd < 0 || lineEnd >= graph.range.end ? anchor : lineEnd;
  const indent = last ? (/^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', last.start - 1) + 1)) ?? [''])[0] : '  ';
  const lineIndex = new LineIndex(text);
  return { title: `Declare \`${id}\``, edits: [{ range: lineIndex.rangeOf({ start: at, end: at }), newText: `\n${indent}${dotId(id)} [prompt=${JSON.stringify(id)}]` }] };
}

// Few letters, both cases and a letter whose lower case is longer (İ), so that near misses abound.
const letter = fc.constantFrom('a', 'b', 'A', 'B', '_', '1', 'İ', 'é');
const shortWord = fc.array(letter, { maxLength: 7 }).map((letters) => letters.join(''));
// Past the indexed length (32) too, with the variants of a few long stems.
const longWord = fc.tuple(fc.constantFrom('a'.repeat(30), 'ab'.repeat(16), 'B'.repeat(33)), shortWord).map(([stem, tail]) => stem + tail);
const word = fc.oneof({ weight: 4, arbitrary: shortWord }, { weight: 1, arbitrary: longWord });

describe('suggestions stay as they were, without comparing every word with every candidate', () => {
  it('Speller answers closestCandidates, and both the plain search, for any words', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 60 }), fc.array(word, { minLength: 1, maxLength: 20 }), (candidates, words) => {
        const speller = new Speller(candidates);
        for (const w of [...words, ...candidates.slice(0, 5)]) {
          const expected = plainClosest(w, candidates);
          assert.deepEqual(speller.closest(w), expected, `word ${JSON.stringify(w)}`);
          assert.deepEqual(closestCandidates(w, candidates), expected);
          assert.equal(speller.suggest(w), expected[0]);
        }
      }),
      { numRuns: 400 },
    );
  });

  const idLetter = fc.constantFrom('a', 'b', 'c', 'x', '1', '_');
  const id = fc.array(idLetter, { minLength: 2, maxLength: 6 }).map((letters) => `n${letters.join('')}`);
  const graphText = fc.record({ declared: fc.uniqueArray(id, { maxLength: 25 }), mentioned: fc.array(id, { maxLength: 25 }), retries: fc.array(id, { maxLength: 5 }) }).map(({ declared, mentioned, retries }) => {
    const lines = ['digraph G {', '  start [shape=Mdiamond]', '  done [shape=Msquare]'];
    declared.forEach((node, i) => lines.push(`  ${node} [prompt="p"${retries[i] ? `, retry_target="${retries[i]}"` : ''}]`));
    for (const node of [...declared, ...mentioned]) lines.push(`  start -> ${node} -> done`);
    lines.push('}');
    return lines.join('\n');
  });

  it('lint names the same node to use, and the same declaration, as the plain search, in any graph', () => {
    fc.assert(
      fc.property(graphText, (text) => {
        const graph = parseDot(text).graph as Graph;
        const diagnostics = lintText(text);
        const declared = [...graph.nodes.values()].filter((node) => node.declarations.length > 0).map((node) => node.id);
        for (const d of byRule(diagnostics, 'edge_target_exists')) {
          const node = d.nodeId as string;
          const suggestion = plainClosest(node, declared)[0];
          assert.equal(d.message.includes('did you mean'), suggestion !== undefined, d.message);
          if (suggestion) assert.match(d.message, new RegExp(`did you mean \`${suggestion}\``));
          else assert.deepEqual(d.fix, plainDeclareFix(text, graph, node));
        }
        for (const d of byRule(diagnostics, 'retry_target_exists')) {
          const target = /names `([^`]+)`/.exec(d.message)?.[1] ?? '';
          assertSuggests(d, plainClosest(target, graph.nodes.keys())[0]);
        }
      }),
      { numRuns: 300 },
    );
  });
});

function assertSuggests(d: Diagnostic, suggestion: string | undefined): void {
  if (suggestion === undefined) assert.doesNotMatch(d.message, /did you mean/, d.message);
  else assert.match(d.message, new RegExp(`did you mean \`${suggestion}\``), d.message);
}
