import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { definition, prepareRename, references, rename } from '../../../language-server/features/navigation';

const text = [
  'digraph G {',
  '  retry_target="fix"',
  '  model_stylesheet="#fix { llm_model: m; }"',
  '  "fix" [prompt="repair", feedback_from=check]',
  '  check [shape=parallelogram, tool_command="make", retry_target=fix]',
  '  check -> fix -> check',
  '}',
].join('\n');
const analysis = analyzeDocument({ uri: 'file:///n.dot', version: 1, text });

describe('navigation', () => {
  it('finds every mention of a node id: statements, edges, node-ref attributes, stylesheet #ids', () => {
    const refs = references(analysis, text.indexOf('fix -> check'), true);
    const mentions = refs.map((r) => `${r.range.start.line}:${r.range.start.character}`);
    assert.deepEqual(mentions, ['1:16', '2:21', '3:3', '4:64', '5:11']);
    assert.equal(references(analysis, text.indexOf('fix -> check'), false).length, 4);
  });

  it('defines a node at its node statement, inside the quotes', () => {
    assert.deepEqual(definition(analysis, text.indexOf('retry_target=fix') + 14)[0]?.range, { start: { line: 3, character: 3 }, end: { line: 3, character: 6 } });
  });

  it('renames consistently and refuses bad names', () => {
    assert.equal(prepareRename(analysis, text.indexOf('prompt')), undefined);
    const result = rename(analysis, text.indexOf('check ['), 'verify');
    assert.ok(result.ok);
    const renamed = TextDocument.applyEdits(TextDocument.create('file:///n.dot', 'dot', 1, text), result.edit.changes?.['file:///n.dot'] ?? []);
    assert.match(renamed, /feedback_from=verify/);
    assert.match(renamed, /verify -> fix -> verify/);
    const keyword = rename(analysis, text.indexOf('check ['), 'node');
    assert.ok(!keyword.ok && /not a valid node id/.test(keyword.message));
    assert.equal(rename(analysis, text.indexOf('check ['), 'a-b').ok, false);
    assert.equal(rename(analysis, text.indexOf('check ['), 'fix').ok, false);
  });
});
