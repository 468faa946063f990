import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RunContext } from '../../engine/runtime/context';
import { evaluateContextExpression, interpolateLogMessage, parseContextExpression } from '../../debug-adapter/context-expression';
import { parseHitCondition } from '../../debug-adapter/hit-condition';
import { parseAnswerGateArguments } from '../../host/protocol/debug';
import { SourceCatalog } from '../../host/source-catalog';
import { threadKeyOf } from '../../debug-adapter/threads';

describe('debug adapter modules', () => {
  it('parses hit conditions and refuses the rest with a message', () => {
    const hits = (text: string) => {
      const parsed = parseHitCondition(text);
      assert.ok(parsed.ok, text);
      return [1, 2, 3, 4, 5, 6].filter(parsed.test);
    };
    assert.deepEqual(hits('3'), [3]);
    assert.deepEqual(hits('==3'), [3]);
    assert.deepEqual(hits('>=3'), [3, 4, 5, 6]);
    assert.deepEqual(hits('> 4'), [5, 6]);
    assert.deepEqual(hits('<3'), [1, 2]);
    assert.deepEqual(hits('<=2'), [1, 2]);
    assert.deepEqual(hits('%2'), [2, 4, 6]);
    for (const bad of ['', 'abc', '%0', '>=x', '3 4']) assert.equal(parseHitCondition(bad).ok, false, bad);
  });

  it('evaluates condition expressions and keys over a context, as edge conditions do', () => {
    const context = new RunContext({ outcome: 'success', 'tool.last_line': 'gate_pass', count: 3, flags: { a: true } });
    const evaluate = (text: string) => {
      const parsed = parseContextExpression(text);
      assert.ok(parsed.ok, text);
      return evaluateContextExpression(parsed.expression, context).display;
    };
    assert.equal(evaluate('context.tool.last_line=gate_pass && outcome=success'), 'true');
    assert.equal(evaluate('outcome!=success'), 'false');
    assert.equal(evaluate('context.tool.last_line'), '"gate_pass"');
    assert.equal(evaluate('count'), '3');
    assert.equal(evaluate('flags'), '{"a":true}');
    assert.equal(evaluate('missing'), 'undefined');
    const bad = parseContextExpression('outcome == success');
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.message, /use `=`/);
  });

  it('interpolates logpoint messages', () => {
    const context = new RunContext({ 'tool.last_line': '4', n: 2 });
    assert.equal(interpolateLogMessage('line {context.tool.last_line}, n={n}, {{literal}}, {nope}', context), 'line 4, n=2, {literal}, {nope: undefined}');
  });

  it('maps walk scopes to threads: sub-pipelines share their caller’s, branches get their own', () => {
    assert.equal(threadKeyOf('main'), 'main');
    assert.equal(threadKeyOf('main>sub:review'), 'main');
    assert.equal(threadKeyOf('main>branch:fan:b1'), 'main>branch:fan:b1');
    assert.equal(threadKeyOf('main>branch:fan:b1>sub:x'), 'main>branch:fan:b1');
    assert.equal(threadKeyOf('main>branch:fan:b1>sub:x>branch:inner:c'), 'main>branch:fan:b1>sub:x>branch:inner:c');
  });

  it('binds breakpoint lines to node and edge statements, sliding to the nearest one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-dap-unit-'));
    const file = path.join(dir, 'p.dot');
    fs.writeFileSync(file, ['digraph p {', '  start [shape=Mdiamond]', '', '  a [shape=box]', '  done [shape=Msquare]', '  start -> a -> done', '}', ''].join('\n'));
    const catalog = new SourceCatalog();
    const at = (line: number) => {
      const resolved = catalog.resolveLine(file, line);
      assert.ok('target' in resolved);
      return resolved.target;
    };
    assert.deepEqual(at(1), { kind: 'node', nodeId: 'start', line: 1 });
    assert.deepEqual(at(2), { kind: 'node', nodeId: 'a', line: 3 });
    assert.deepEqual(at(5), { kind: 'edges', edgeIndices: [0, 1], line: 5 });
    assert.deepEqual(at(0), { kind: 'node', nodeId: 'start', line: 1 });
    assert.equal(catalog.nodeLine(file, 'done'), 4);
    assert.ok('message' in catalog.resolveLine(path.join(dir, 'missing.dot'), 1));
  });

  it('validates answerGate arguments at the boundary', () => {
    assert.deepEqual(parseAnswerGateArguments({ gateId: 'g', answer: { kind: 'option', choice: 'A' } }), { ok: true, value: { gateId: 'g', answer: { kind: 'option', choice: 'A' } } });
    assert.deepEqual(parseAnswerGateArguments({ gateId: 'g', answer: { kind: 'skipped' } }), { ok: true, value: { gateId: 'g', answer: { kind: 'skipped' } } });
    for (const bad of [null, {}, { gateId: '' }, { gateId: 'g', answer: { kind: 'option' } }, { gateId: 'g', answer: { kind: 'option', key: 'A' } }, { gateId: 'g', answer: { kind: 'skip' } }, { gateId: 'g', answer: { kind: 'freeform', text: 3 } }]) {
      assert.equal(parseAnswerGateArguments(bad).ok, false, JSON.stringify(bad));
    }
  });
});
