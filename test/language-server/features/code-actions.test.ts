import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { SpanDiagnostic } from '../../../engine/model/diagnostics';
import { valueSpanOf } from '../../../engine/model/graph';
import type { LintRule } from '../../../engine/validate/rule';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { editDistance } from '../../../engine/validate/did-you-mean';
import { codeActions, nearest } from '../../../language-server/features/code-actions';
import { documentDiagnostics } from '../../../language-server/features/diagnostics';

/** A rule with a machine-applicable fix, the way the engine's lint rules carry them. */
const unguardedLastLine: LintRule = {
  name: 'test_last_line_guard',
  tier: 'lint',
  *check({ graph }): Iterable<SpanDiagnostic> {
    for (const edge of graph.edges) {
      const condition = edge.attributes.get('condition');
      const value = condition && valueSpanOf(condition);
      if (!condition || !value || !condition.value.includes('tool.last_line') || condition.value.includes('outcome=')) continue;
      const end = value.end - 1;
      yield {
        rule: 'test_last_line_guard',
        severity: 'warning',
        message: 'Routing on tool.last_line without outcome=success',
        range: value,
        fix: { title: 'Add `&& outcome=success`', edits: [{ range: { start: end, end }, newText: ' && outcome=success' }] },
      };
    }
  },
};

const text = 'digraph G {\n  start [shape=Mdiamond]\n  t [shape=parallelogram, tool_command="make"]\n  done [shape=Msquare]\n  start -> t\n  t -> done [condition="context.tool.last_line=ok"]\n}\n';

describe('code actions', () => {
  it('turns a diagnostic fix into a preferred quick fix whose edit repairs the text', () => {
    const analysis = analyzeDocument({ uri: 'file:///a.dot', version: 1, text, prepareOptions: { extraRules: [unguardedLastLine] } });
    const diagnostics = documentDiagnostics(analysis, undefined).filter((d) => d.code === 'test_last_line_guard');
    assert.equal(diagnostics.length, 1);
    const [action] = codeActions(analysis, diagnostics);
    assert.equal(action?.title, 'Add `&& outcome=success`');
    assert.equal(action?.isPreferred, true);
    const fixed = TextDocument.applyEdits(TextDocument.create('file:///a.dot', 'dot', 1, text), action?.edit?.changes?.['file:///a.dot'] ?? []);
    assert.match(fixed, /condition="context.tool.last_line=ok && outcome=success"/);
  });

  it('offers to declare an implicit node (an edge to an id no statement declares)', () => {
    const implicit = text.replace('start -> t\n', 'start -> t -> summarize -> done\n');
    const analysis = analyzeDocument({ uri: 'file:///i.dot', version: 1, text: implicit });
    const diagnostics = documentDiagnostics(analysis, undefined).filter((d) => d.code === 'edge_target_exists');
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]?.severity, 2, 'a warning: DOT creates the node');
    const [action] = codeActions(analysis, diagnostics);
    assert.equal(action?.title, 'Declare `summarize`');
    const fixed = TextDocument.applyEdits(TextDocument.create('file:///i.dot', 'dot', 1, implicit), action?.edit?.changes?.['file:///i.dot'] ?? []);
    assert.match(fixed, /done \[shape=Msquare\]\n {2}summarize \[prompt="summarize"\]\n/);
  });

  it('suggests the nearest attribute, enum value or node id when there is no fix', () => {
    const typo = text.replace('shape=parallelogram', 'shape=parallelogrm').replace('tool_command=', 'tool_comand=');
    const analysis = analyzeDocument({ uri: 'file:///b.dot', version: 1, text: typo });
    const range = (needle: string) => {
      const start = analysis.lineIndex.positionAt(typo.indexOf(needle));
      return { start: { line: start.line, character: start.character }, end: { line: start.line, character: start.character + needle.length } };
    };
    const titles = (needle: string) => codeActions(analysis, [{ range: range(needle), message: 'x' }]).map((a) => a.title);
    assert.deepEqual(titles('tool_comand'), ['Did you mean `tool_command`?']);
    assert.deepEqual(titles('parallelogrm'), ['Did you mean `parallelogram`?']);
  });

  it('ranks by edit distance within a bound', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.deepEqual(nearest('reviw', ['review', 'rework', 'gate']), ['review']);
    assert.deepEqual(nearest('x', ['gate']), []);
  });
});
