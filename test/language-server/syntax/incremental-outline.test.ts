// The incremental outline must be indistinguishable from a fresh one: random edit sequences on the
// real example pipelines, each step's updated outline compared with buildOutline of the same text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { updateOutline } from '../../../language-server/syntax/incremental-outline';
import type { Outline } from '../../../language-server/syntax/outline';
import { buildOutline } from '../../../language-server/syntax/outline';
import type { Token } from '../../../language-server/syntax/scanner';

const examples = path.resolve(__dirname, '../../../examples');
const texts = fs
  .readdirSync(examples)
  .filter((f) => f.endsWith('.dot'))
  .map((f) => fs.readFileSync(path.join(examples, f), 'utf8'));
// What typing produces: openers and closers of every lexical kind, statement punctuation, keywords.
const fragments = ['[', ']', '"', '->', '--', '{', '}', '=', ';', ',', ':', 'shape', 'condition="outcome=', ' ', '\n', 'a', 'a.b', '-', '.5', '/*', '*/', '//', '#', '<', '>', '\\', '\r\n', 'subgraph', 'node [', 'digraph', '"x\n'];
const insertion = fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 }));
const edit = fc.record({ at: fc.nat(), length: fc.oneof(fc.constant(0), fc.nat({ max: 12 }), fc.nat({ max: 400 })), text: fc.oneof(insertion, fc.constant('')) });

/** Thousands of tokens: edits split and shift the scanner's token segments. */
const large = ['digraph large {', ...Array.from({ length: 120 }, (_, k) => `  n${k} [shape=box, prompt="step ${k}"] // ${k}\n  n${k} -> n${k + 1} [condition="outcome=success"]`), '}', ''].join('\n');

/** An outline as plain data: tokens by what they are and where, whatever the scanner's bookkeeping. */
function plain(outline: Outline): unknown {
  return JSON.parse(JSON.stringify(outline, (_key, value: unknown) => (isToken(value) ? { kind: value.kind, start: value.start, end: value.end, text: value.text, terminated: value.terminated } : value)));
}

function isToken(value: unknown): value is Token {
  return typeof value === 'object' && value !== null && 'kind' in value && 'terminated' in value && 'start' in value;
}

const equalsFresh = (outline: Outline) => assert.deepEqual(plain(outline), plain(buildOutline(outline.text)));

function applyEdit(outline: Outline, at: number, length: number, inserted: string): Outline {
  const text = outline.text;
  const start = at % (text.length + 1);
  const oldEnd = Math.min(text.length, start + length);
  const next = text.slice(0, start) + inserted + text.slice(oldEnd);
  return updateOutline(outline, { start, oldEnd, newEnd: start + inserted.length }, next);
}

describe('incremental outline', () => {
  it('equals a fresh outline after every edit of random edit sequences on the examples', () => {
    fc.assert(
      fc.property(fc.nat({ max: texts.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 15 }), (which, edits) => {
        let outline = buildOutline(texts[which] as string);
        for (const { at, length, text } of edits) {
          outline = applyEdit(outline, at, length, text);
          equalsFresh(outline);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('equals a fresh outline after random edit sequences on a text of thousands of tokens', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 8 }), (edits) => {
        let outline = buildOutline(large);
        for (const { at, length, text } of edits) {
          outline = applyEdit(outline, at, length, text);
          equalsFresh(outline);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('keeps the records after the edit and reads again only the statements around it', () => {
    const text = fs.readFileSync(path.join(examples, 'convergence-loop.dot'), 'utf8');
    const before = buildOutline(text);
    const at = text.lastIndexOf('->');
    const after = applyEdit(before, at, 0, ' ');
    equalsFresh(after);
    // Statements well before the edit are the very same records, not re-read copies.
    assert.equal(after.lists[0], before.lists[0]);
    assert.equal(after.tokens[0], before.tokens[0]);
  });

  it('moves the records after an edit without copying them', () => {
    const before = buildOutline(large);
    const last = before.lists.at(-1);
    const start = last?.open.start ?? 0;
    const after = applyEdit(before, large.indexOf('n0 ['), 0, 'x');
    equalsFresh(after);
    assert.equal(after.lists.at(-1), last, 'the same record');
    assert.equal(last?.open.start, start + 1, 'at its new place');
  });
});
