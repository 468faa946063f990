import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseDot } from '../../../engine/parse/dot-parser';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { formatDocument } from '../../../language-server/features/formatting';
import { generatePipeline } from '../../../bench/language-server/generate-pipeline';
import { fixtureText } from '../lsp-client';

const options = { tabSize: 2, insertSpaces: true };

function format(text: string): string {
  const analysis = analyzeDocument({ uri: 'file:///f.dot', version: 1, text });
  return TextDocument.applyEdits(TextDocument.create('file:///f.dot', 'dot', 1, text), formatDocument(analysis, options));
}

describe('formatting', () => {
  it('orders attributes canonically and keeps multi-line lists and strings as they are', () => {
    const text = 'digraph G {\n    b [max_retries=2,\n  tool_command="make\n  all", shape=parallelogram]\n}';
    assert.equal(format(text), 'digraph G {\n  b [shape=parallelogram,\n    tool_command="make\n  all", max_retries=2]\n}\n');
  });

  it('leaves lists that hold comments in their order', () => {
    const text = 'digraph G {\n  a [prompt="p", /* why */ shape=box]\n}\n';
    assert.equal(format(text), text);
  });

  it('does nothing to text that does not parse', () => {
    const text = 'digraph G {\n    a [shape=\n}';
    assert.deepEqual(formatDocument(analyzeDocument({ uri: 'file:///f.dot', version: 1, text }), options), []);
  });

  it('is idempotent and only changes whitespace and attribute order (re-parsed)', () => {
    // Comments are left out here so the noise below cannot turn comment text into code.
    const withoutComments = (t: string) => t.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    const fixtures = [withoutComments(fixtureText('review-loop.dot')), generatePipeline(30)];
    const messUp = fc.array(fc.constantFrom(' ', '  ', '\n', '\t', ''), { minLength: 1, maxLength: 400 });
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), messUp, (source, noise) => {
        // Vary the whitespace around punctuation outside strings: a real author's mess.
        let k = 0;
        let inString = false;
        let messy = '';
        for (const ch of source) {
          if (ch === '"') inString = !inString;
          messy += ch;
          if (!inString && '[],;='.includes(ch)) messy += (noise[k++ % noise.length] ?? '').replace(/\n/g, ch === '=' ? '' : '\n');
        }
        const once = format(messy);
        assert.equal(format(once), once);
        const before = parseDot(messy).graph;
        const after = parseDot(once).graph;
        assert.ok(before && after);
        assert.deepEqual([...after.nodes.keys()], [...before.nodes.keys()]);
        const characters = (t: string) => [...t.replace(/\s+/g, '')].sort().join('');
        assert.equal(characters(once), characters(messy), 'only whitespace and order changed');
        const squash = (t: string) => [...parseDot(t).graph!.nodes.values()].map((n) => [...n.attributes.values()].map((a) => `${a.key}=${a.value}`).sort().join('|'));
        assert.deepEqual(squash(once), squash(messy));
      }),
      { numRuns: 40 },
    );
  });
});
