import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { InlineChecker } from '../../../language-server/analysis/checker';
import { analyzeDocument } from '../../../language-server/analysis/document-analysis';
import { checkChildren, childReferences, parentDiagnostic } from '../../../language-server/features/child-pipelines';
import { documentDiagnostics, toLspDiagnostic } from '../../../language-server/features/diagnostics';
import { fixtures, fixtureText } from '../lsp-client';

const range = (offset: number) => ({ line: 0, character: offset, offset });

describe('diagnostic conversion', () => {
  it('keeps severity, rule or ledger code, doc link, related information and the fix', () => {
    const lsp = toLspDiagnostic(
      {
        rule: 'dead_route',
        code: 'TOPO-001',
        severity: 'warning',
        message: 'm',
        range: { start: range(1), end: range(3) },
        related: [{ message: 'the other end', range: { start: range(5), end: range(6) } }],
        fix: { title: 't', edits: [] },
      },
      'file:///x.dot',
      'file:///ext/docs/rules.md',
      { start: range(0), end: range(0) },
    );
    assert.equal(lsp.severity, 2);
    assert.equal(lsp.code, 'TOPO-001');
    assert.equal(lsp.codeDescription?.href, 'file:///ext/docs/rules.md#dead_route-topo-001', 'the slug of the heading `dead_route (TOPO-001)`');
    assert.deepEqual(lsp.relatedInformation, [{ message: 'the other end', location: { uri: 'file:///x.dot', range: { start: { line: 0, character: 5 }, end: { line: 0, character: 6 } } } }]);
    assert.deepEqual(lsp.data, { rule: 'dead_route', fix: { title: 't', edits: [] } });
    assert.equal(lsp.source, 'attractor');
  });

  it('reports a syntax error alone, at the parser’s location', () => {
    const analysis = analyzeDocument({ uri: 'file:///s.dot', version: 1, text: 'digraph G {\n  a -> \n}' });
    const diagnostics = documentDiagnostics(analysis, undefined);
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]?.code, 'syntax');
    assert.deepEqual(diagnostics[0]?.range.start, { line: 2, character: 0 });
  });
});

describe('diagnostics without a range', () => {
  const unplaced = [{ rule: 'internal_error', severity: 'error' as const, message: 'm' }];
  const rangeIn = (text: string) => documentDiagnostics({ uri: 'file:///u.dot', text, diagnostics: unplaced }, undefined)[0]?.range;

  it('sit on the name of the first graph header that opens a body, past comments that look like one', () => {
    const text = '// digraph fake {\n/* graph also_fake { */\nstrict digraph "real" {\n  a -> b\n}\n';
    assert.deepEqual(rangeIn(text), { start: { line: 2, character: 15 }, end: { line: 2, character: 21 } });
  });

  it('sit on the keyword of an anonymous graph, and at the start of a text with no header', () => {
    assert.deepEqual(rangeIn('\n  digraph {\n}'), { start: { line: 1, character: 2 }, end: { line: 1, character: 9 } });
    assert.deepEqual(rangeIn('a -> b'), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  });
});

describe('dot_file children', () => {
  it('lints each child and summarises its errors on the parent’s dot_file value', async () => {
    const parentPath = path.join(fixtures, 'review-loop.dot');
    const analysis = analyzeDocument({ uri: pathToFileURL(parentPath).href, version: 1, text: fixtureText('review-loop.dot'), sourcePath: parentPath });
    const [reference] = await childReferences(analysis);
    assert.equal(reference?.path, path.join(fixtures, 'child.dot'));
    const [check] = await checkChildren(await childReferences(analysis), (ref) => (ref.path.endsWith('child.dot') ? fixtureText('child.dot') : undefined), new InlineChecker());
    assert.ok(check?.diagnostics.some((d) => d.rule === 'terminal_node'));
    const summary = check ? parentDiagnostic(check, analysis.uri, undefined) : undefined;
    assert.match(String(summary?.message), /Sub-pipeline `child.dot` of node `child` has 1 error: The pipeline has no exit node/);
    assert.equal(summary?.relatedInformation?.[0]?.location.uri, pathToFileURL(path.join(fixtures, 'child.dot')).href);
    const healthy = await checkChildren(await childReferences(analysis), () => 'digraph c { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }', new InlineChecker());
    assert.equal(healthy[0] && parentDiagnostic(healthy[0], analysis.uri, undefined), undefined);
  });
});
