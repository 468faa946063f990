// The bundled server as a separate process, over stdio JSON-RPC, on the fixture pipelines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CompletionItem, CompletionList, Diagnostic, DocumentSymbol, Hover, Location, MarkupContent, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol/node';
import {
  CodeActionRequest,
  CompletionRequest,
  DefinitionRequest,
  DocumentFormattingRequest,
  DocumentLinkRequest,
  DocumentSymbolRequest,
  FoldingRangeRequest,
  HoverRequest,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  SemanticTokensRequest,
} from 'vscode-languageserver-protocol/node';
import { ensureTestBundle, fixtureText, fixtureUri, LspClient, positionOf } from './lsp-client';

const mainUri = fixtureUri('review-loop.dot');
const childUri = fixtureUri('child.dot');
const text = fixtureText('review-loop.dot');

function labels(result: CompletionItem[] | CompletionList | null): string[] {
  const items = Array.isArray(result) ? result : (result?.items ?? []);
  return items.map((i) => i.label);
}

function hoverText(result: Hover | null): string {
  return (result?.contents as MarkupContent | undefined)?.value ?? '';
}

describe('language server over stdio', () => {
  let client: LspClient;
  before(async () => {
    ensureTestBundle();
    client = await LspClient.start({ diagnosticsDelayMs: 10, rulesDocUri: 'file:///docs/rules.md' });
    await client.open(mainUri, text);
  });
  after(async () => client.stop());

  const complete = (needle: string, delta: number, uri = mainUri, source = text) =>
    client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionOf(source, needle, delta) });

  it('publishes engine diagnostics with codes, doc links, related information and severities', async () => {
    const published = await client.diagnosticsFor(childUri);
    const terminal = published.diagnostics.find((d) => d.code === 'terminal_node') as Diagnostic;
    assert.ok(terminal, JSON.stringify(published.diagnostics));
    assert.equal(terminal.severity, 1);
    assert.equal(terminal.source, 'attractor');
    assert.equal(terminal.codeDescription?.href, 'file:///docs/rules.md#terminal_node');
    // The graph name `child` on line 0.
    assert.deepEqual(terminal.range, { start: { line: 0, character: 8 }, end: { line: 0, character: 13 } });
  });

  it('flags a dot_file child that would not validate on the parent, pointing at the child', async () => {
    const published = await client.diagnosticsFor(mainUri, (p) => p.diagnostics.some((d) => d.code === 'child_pipeline'));
    const child = published.diagnostics.find((d) => d.code === 'child_pipeline') as Diagnostic;
    const at = positionOf(text, '"child.dot"');
    assert.deepEqual(child.range, { start: at, end: { line: at.line, character: at.character + '"child.dot"'.length } });
    assert.equal(child.relatedInformation?.[0]?.location.uri, childUri);
  });

  it('completes attribute names for the place: node, edge and node defaults', async () => {
    const node = labels(await complete('gate [shape', 6));
    assert.ok(node.includes('prompt') && node.includes('max_retries') && !node.includes('condition') && !node.includes('weight'));
    const edge = labels(await complete('Approve"]', 8));
    assert.ok(edge.includes('condition') && edge.includes('weight') && edge.includes('loop_restart') && !edge.includes('prompt'));
    assert.ok(!edge.includes('label'), 'attributes already in the list are not offered again');
  });

  it('completes shape values with their handler, and node ids after -> and in retry_target', async () => {
    const shapes = await complete('shape=hexagon', 6);
    const items = Array.isArray(shapes) ? shapes : (shapes?.items ?? []);
    const hexagon = items.find((i) => i.label === 'hexagon');
    assert.equal(hexagon?.detail, 'handler: wait.human');
    assert.deepEqual(hexagon?.textEdit && 'range' in hexagon.textEdit ? hexagon.textEdit.range : undefined, {
      start: positionOf(text, 'hexagon'),
      end: positionOf(text, 'hexagon', 7),
    });
    assert.ok(labels(await complete('-> run_tests', 3)).includes('review'));
    assert.ok(labels(await complete('retry_target=implement', 13)).includes('gate'));
  });

  it('completes condition keys written upstream, status values and stylesheet selectors', async () => {
    const keys = labels(await complete('context.tests_passed', 8));
    for (const key of ['outcome', 'preferred_label', 'context.tests_passed', 'context.coverage', 'context.tool.last_line', 'context.human.gate.selected']) assert.ok(keys.includes(key), key);
    assert.deepEqual(labels(await complete('outcome=fail', 8)).slice(0, 4), ['success', 'fail', 'partial_success', 'retry']);
    const selectors = labels(await complete('.critic {', 0));
    for (const selector of ['*', 'hexagon', '.critic', '#implement']) assert.ok(selectors.includes(selector), selector);
    assert.deepEqual(labels(await complete('reasoning_effort: low', 18)), ['low', 'medium', 'high']);
    const variables = labels(await complete('$goal', 2));
    for (const variable of ['$goal', '$iteration', '$prior_critiques_implement']) assert.ok(variables.includes(variable), variable);
  });

  it('hovers a node with its handler, stylesheet model, retry policy and edges', async () => {
    const review = hoverText(await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: mainUri }, position: positionOf(text, 'review -> gate', 1) }));
    assert.match(review, /handler `codergen`/);
    assert.match(review, /llm_model: `gpt-5` \(stylesheet `\.critic`\)/);
    assert.match(review, /reasoning_effort: `low`/);
    assert.match(review, /max_retries 0 · retry_target `implement`/);
    assert.match(review, /`run_tests` → when `outcome=success && context.tests_passed=true`/);
    const implement = hoverText(await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: mainUri }, position: positionOf(text, 'implement [', 2) }));
    assert.match(implement, /max_retries 2 \(inherited from default_max_retries\)/);
    assert.match(implement, /llm_provider: `anthropic` \(stylesheet `#implement`\)/);
  });

  it('hovers a condition clause by clause and an attribute key with its table entry', async () => {
    const condition = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: mainUri }, position: positionOf(text, 'outcome=success &&', 3) });
    assert.match(hoverText(condition), /1\. `outcome` equals `success`/);
    assert.match(hoverText(condition), /2\. `context.tests_passed` equals `true` — context key `tests_passed`/);
    assert.deepEqual(condition?.range?.start, positionOf(text, '"outcome=success &&'));
    const key = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: mainUri }, position: positionOf(text, 'feedback_from', 2) });
    assert.match(hoverText(key), /\*\*feedback_from\*\* — node id/);
    assert.match(hoverText(key), /EXTENSIONS feedback_from/);
  });

  it('goes to a node definition and lists references across edges, retry targets, feedback_from and the stylesheet', async () => {
    const definition = (await client.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri: mainUri }, position: positionOf(text, 'retry_target=implement', 14) })) as Location[];
    assert.deepEqual(definition[0]?.range, { start: positionOf(text, 'implement ['), end: positionOf(text, 'implement [', 9) });
    const refs = (await client.connection.sendRequest(ReferencesRequest.type, { textDocument: { uri: mainUri }, position: positionOf(text, 'implement ['), context: { includeDeclaration: true } })) ?? [];
    // statement, stylesheet #implement, retry_target, 4 edge endpoints
    assert.equal(refs.length, 7);
    assert.ok(refs.some((r) => r.range.start.character === positionOf(text, '#implement', 1).character && r.range.start.line === positionOf(text, '#implement').line));
  });

  it('renames a node everywhere, and refuses invalid names and collisions', async () => {
    const position = positionOf(text, 'review [');
    const prepared = await client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: mainUri }, position });
    assert.deepEqual(prepared && 'placeholder' in prepared ? prepared.placeholder : undefined, 'review');
    const none = await client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: mainUri }, position: positionOf(text, 'shape=box') });
    assert.equal(none, null);
    const edit = (await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: mainUri }, position, newName: 'critic' })) as WorkspaceEdit;
    const renamed = TextDocument.applyEdits(TextDocument.create(mainUri, 'dot', 1, text), edit.changes?.[mainUri] ?? []);
    assert.match(renamed, /feedback_from=critic/);
    assert.match(renamed, /run_tests -> critic \[/);
    assert.match(renamed, /critic -> gate/);
    assert.doesNotMatch(renamed, /review ->|-> review\b|=review\b|^\s*review \[/m);
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: mainUri }, position, newName: '2fast' }), /not a valid node id/);
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: mainUri }, position, newName: 'gate' }), /already exists/);
  });

  it('lists symbols: the graph, its nodes in document order with their handlers', async () => {
    const symbols = (await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: mainUri } })) as DocumentSymbol[];
    assert.equal(symbols[0]?.name, 'review_loop');
    const nodes = (symbols[0]?.children ?? []).map((n) => [n.name, n.detail]);
    assert.deepEqual(nodes, [
      ['start', 'start'],
      ['done', 'exit'],
      ['implement', 'codergen'],
      ['run_tests', 'tool'],
      ['review', 'codergen · Review'],
      ['gate', 'wait.human · Approve?'],
      ['child', 'pipeline'],
    ]);
    const implement = symbols[0]?.children?.find((n) => n.name === 'implement');
    assert.deepEqual(implement?.selectionRange, { start: positionOf(text, 'implement ['), end: positionOf(text, 'implement [', 9) });
  });

  it('folds the graph body and the block comment', async () => {
    const ranges = (await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument: { uri: mainUri } })) ?? [];
    const comment = positionOf(text, '/* The main path').line;
    assert.ok(ranges.some((r) => r.startLine === comment && r.endLine === comment + 1 && r.kind === 'comment'));
    assert.ok(ranges.some((r) => r.startLine === 1 && r.endLine === text.trimEnd().split('\n').length - 2));
  });

  it('emits semantic tokens for node ids, attribute keys, shapes and condition parts', async () => {
    const result = await client.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: mainUri } });
    const tokens: { line: number; character: number; length: number; type: number; modifiers: number }[] = [];
    let line = 0;
    let character = 0;
    const data = result?.data ?? [];
    for (let k = 0; k < data.length; k += 5) {
      line += data[k] as number;
      character = data[k] === 0 ? character + (data[k + 1] as number) : (data[k + 1] as number);
      tokens.push({ line, character, length: data[k + 2] as number, type: data[k + 3] as number, modifiers: data[k + 4] as number });
    }
    const find = (needle: string, delta = 0) => {
      const at = positionOf(text, needle, delta);
      return tokens.find((t) => t.line === at.line && t.character === at.character);
    };
    // legend: namespace 0, variable 1, property 2, type 3, enumMember 4, keyword 5, operator 6, macro 7
    assert.deepEqual(find('implement ['), { ...positionOf(text, 'implement ['), length: 9, type: 1, modifiers: 1 });
    assert.equal(find('shape=Mdiamond')?.type, 2);
    assert.equal(find('Mdiamond')?.type, 3);
    assert.equal(find('outcome=success &&')?.type, 5);
    assert.equal(find('&& context', 0)?.type, 6);
    assert.equal(find('$goal')?.type, 7);
  });

  it('links dot_file, response_schema and must_write paths', async () => {
    const links = (await client.connection.sendRequest(DocumentLinkRequest.type, { textDocument: { uri: mainUri } })) ?? [];
    const targets = links.map((l) => l.target);
    assert.ok(targets.includes(childUri));
    assert.ok(targets.includes(fixtureUri('schemas/review.json')));
    assert.ok(targets.includes(fixtureUri('notes/plan.md')));
    const child = links.find((l) => l.target === childUri);
    assert.deepEqual(child?.range.start, positionOf(text, 'child.dot"'));
  });

  it('offers a diagnostic fix as a quick fix and did-you-mean for misspellings', async () => {
    const range = { start: positionOf(text, 'gate ['), end: positionOf(text, 'gate [', 4) };
    const fix = { title: 'Add a retry_target', edits: [{ range: { start: { ...range.end, offset: 0 }, end: { ...range.end, offset: 0 } }, newText: ' [retry_target=implement]' }] };
    const withFix = await client.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: mainUri },
      range,
      context: { diagnostics: [{ range, message: 'x', data: { rule: 'test', fix } }] },
    });
    assert.equal(withFix?.[0]?.title, 'Add a retry_target');

    const typo = text.replace('gate [shape=hexagon', 'gate [shpe=hexagon').replace('retry_target=implement', 'retry_target=implemnt');
    const typoUri = fixtureUri('typo.dot');
    await client.open(typoUri, typo);
    const keyRange = { start: positionOf(typo, 'shpe'), end: positionOf(typo, 'shpe', 4) };
    const actions = await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: typoUri }, range: keyRange, context: { diagnostics: [{ range: keyRange, message: 'unknown attribute' }] } });
    assert.ok(actions?.some((a) => 'title' in a && a.title === 'Did you mean `shape`?'));
    const idRange = { start: positionOf(typo, 'implemnt'), end: positionOf(typo, 'implemnt', 8) };
    const idActions = await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: typoUri }, range: idRange, context: { diagnostics: [{ range: idRange, message: 'unknown node' }] } });
    const first = idActions?.[0];
    assert.ok(first && 'edit' in first);
    assert.deepEqual(first.edit?.changes?.[typoUri], [{ range: idRange, newText: 'implement' }]);
  });

  it('applies the fix a published lint diagnostic carries', async () => {
    const typo = text.replace('gate [shape=hexagon', 'gate [shpe=hexagon');
    const uri = fixtureUri('published-fix.dot');
    await client.open(uri, typo);
    const published = await client.diagnosticsFor(uri, (p) => p.diagnostics.some((d) => (d.data as { fix?: unknown } | undefined)?.fix));
    const withFix = published.diagnostics.find((d) => (d.data as { fix?: unknown } | undefined)?.fix) as Diagnostic;
    assert.deepEqual(withFix.range.start, positionOf(typo, 'shpe'));
    const actions = await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range: withFix.range, context: { diagnostics: [withFix] } });
    const action = actions?.[0];
    assert.ok(action && 'edit' in action && action.isPreferred);
    const fixed = TextDocument.applyEdits(TextDocument.create(uri, 'dot', 1, typo), action.edit?.changes?.[uri] ?? []);
    assert.match(fixed, /gate \[shape=hexagon/);
  });

  it('formats: canonical attribute order, normalised spacing, comments kept, idempotent', async () => {
    const messy = 'digraph G {\n// keep me\nstart[shape=Mdiamond]\n    work [ prompt="do it" , max_retries=1,shape=box ]\n start->work\nwork  ->  done\ndone [shape=Msquare] /* end */\n}\n';
    const uri = fixtureUri('messy.dot');
    await client.open(uri, messy);
    const edits = (await client.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } })) as TextEdit[];
    const formatted = TextDocument.applyEdits(TextDocument.create(uri, 'dot', 1, messy), edits);
    assert.equal(formatted, 'digraph G {\n  // keep me\n  start [shape=Mdiamond]\n  work [shape=box, prompt="do it", max_retries=1]\n  start -> work\n  work -> done\n  done [shape=Msquare] /* end */\n}\n');
    await client.change(uri, [{ text: formatted }]);
    const again = await client.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
    assert.deepEqual(again, []);
  });
});
