import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ensureTestBundle, cliRun, conformanceCases, fixtures, launch, lineOf, scopeValues, scriptedArgs, sessionPool, topFrame, traceOf, workspace, workspaceWith } from './harness';

const { start: session, stopAll } = sessionPool();


describe('debug adapter: breakpoints and the trace', () => {
  before(ensureTestBundle);
  after(stopAll);

  for (const name of ['linear-tools', 'convergence-loop', 'human-gate-routes', 'sub-pipeline-folder', 'fail-edge-recovers', 'no-matching-edge-fails-loud']) {
    it(`runs ${name} with no breakpoints to the same trace as attractor run`, async () => {
      const viaCli = workspace(path.join(conformanceCases, name));
      const cli = cliRun(['run', path.join(viaCli, 'pipeline.dot'), '--cwd', viaCli, '--logs-root', path.join(viaCli, '.run'), '--scripted', path.join(viaCli, 'case.json'), '--json'], viaCli);
      assert.ok(cli.status === 0 || cli.status === 1, cli.stderr);

      const viaDebugger = workspace(path.join(conformanceCases, name));
      const s = await session();
      await launch(s, scriptedArgs(viaDebugger));
      const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
      await s.events.next('terminated');
      assert.equal(exited.body.exitCode, cli.status);
      const strip = (trace: ReturnType<typeof traceOf>) => trace.map((r) => `${r.iteration}:${r.node_id}:${r.status}`);
      assert.deepEqual(strip(traceOf(path.join(viaDebugger, '.run'))), strip(traceOf(path.join(viaCli, '.run'))));
      // Sub-pipeline records go to the child's own trace.jsonl; the events carry them too.
      const ownRecords = s.events.bodies<{ record: { scope?: string } }>('traceEntry').filter((e) => !e.record.scope?.includes('>sub:'));
      assert.equal(ownRecords.length, traceOf(path.join(viaDebugger, '.run')).length);
    });
  }

  it('stops before a node runs on a line breakpoint, with the frame at its declaration', async () => {
    const dir = workspace(path.join(conformanceCases, 'linear-tools'));
    const program = path.join(dir, 'pipeline.dot');
    const line = lineOf(program, 'b [shape=parallelogram');
    const s = await session();
    const { breakpoints } = await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line }] } });
    assert.equal(breakpoints[program]?.[0]?.verified, true);
    const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'breakpoint');
    assert.deepEqual(stopped.body.hitBreakpointIds, [breakpoints[program]?.[0]?.id]);
    const frame = await topFrame(s);
    assert.equal(frame.name, 'b');
    assert.equal(frame.line, line);
    assert.equal(frame.source?.path, program);
    assert.ok(fs.existsSync(path.join(dir, 'a.txt')), 'a ran before the stop');
    assert.ok(!fs.existsSync(path.join(dir, 'b.txt')), 'b has not run yet');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    assert.ok(fs.existsSync(path.join(dir, 'b.txt')));
  });

  it('stops on an edge statement when that edge is traversed, never on an edge not taken', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const program = path.join(dir, 'pipeline.dot');
    const taken = lineOf(program, 'decide -> right');
    const notTaken = lineOf(program, 'decide -> left');
    const s = await session();
    await launch(s, scriptedArgs(dir, { params: { go: 'right' } }), { breakpoints: { [program]: [{ line: notTaken }, { line: taken }] } });
    const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'breakpoint');
    const frame = await topFrame(s);
    assert.equal(frame.name, 'decide -> right');
    assert.equal(frame.line, taken);
    assert.ok(!fs.existsSync(path.join(dir, 'route.txt')));
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    assert.equal(s.events.drain('stopped').length, 0);
    assert.equal(fs.readFileSync(path.join(dir, 'route.txt'), 'utf8'), 'right\n');
  });

  it('moves a breakpoint on a line without a statement to the nearest one, and leaves an unparseable file unverified', async () => {
    const dir = workspace(path.join(conformanceCases, 'linear-tools'));
    const program = path.join(dir, 'pipeline.dot');
    fs.writeFileSync(program, fs.readFileSync(program, 'utf8').replace('  a [shape', '\n  // the first tool\n  a [shape'));
    const comment = lineOf(program, '// the first tool');
    const broken = path.join(dir, 'broken.dot');
    fs.writeFileSync(broken, 'digraph { a -> }\n');
    const s = await session();
    const { breakpoints } = await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: comment }], [broken]: [{ line: 1 }] } });
    assert.equal(breakpoints[program]?.[0]?.verified, true);
    assert.equal(breakpoints[program]?.[0]?.line, comment + 1);
    assert.equal(breakpoints[broken]?.[0]?.verified, false);
    assert.match(breakpoints[broken]?.[0]?.message ?? '', /does not parse/);
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'a');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('verifies a breakpoint with a BreakpointEvent once its file parses', async () => {
    const dir = workspace(path.join(conformanceCases, 'linear-tools'));
    const program = path.join(dir, 'pipeline.dot');
    const good = fs.readFileSync(program, 'utf8');
    const line = lineOf(program, 'b [shape=parallelogram');
    fs.writeFileSync(program, good.replace('start -> a', 'start -> '));
    const s = await session();
    const initialized = s.client.waitForEvent('initialized');
    await s.client.initializeRequest({ adapterID: 'attractor', pathFormat: 'path', linesStartAt1: true });
    await initialized;
    const set = await s.client.setBreakpointsRequest({ source: { path: program }, breakpoints: [{ line }] });
    assert.equal(set.body.breakpoints[0]?.verified, false);
    fs.writeFileSync(program, good);
    await Promise.all([s.client.configurationDoneRequest(), s.client.launchRequest(scriptedArgs(dir) as DebugProtocol.LaunchRequestArguments)]);
    const changed = await s.events.next<DebugProtocol.BreakpointEvent>('breakpoint');
    assert.equal(changed.body.reason, 'changed');
    assert.equal(changed.body.breakpoint.verified, true);
    assert.equal(changed.body.breakpoint.id, set.body.breakpoints[0]?.id);
    assert.equal(changed.body.breakpoint.line, line);
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'b');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('stops on function breakpoints by node id and by a->b', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    const s = await session();
    await launch(s, scriptedArgs(dir), { functionBreakpoints: [{ name: 'check->done' }, { name: 'count', hitCondition: '2' }] });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'count');
    assert.equal((await scopeValues(s, 'Run')).values['visit'], '2');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'check -> done');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('honours a condition over the live context in a loop', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'check [shape'), condition: 'context.tool.last_line=3' }] } });
    await s.events.next('stopped');
    const context = await scopeValues(s, 'Context');
    assert.equal(context.values['tool.last_line'], '"3"');
    const evaluated = await s.client.evaluateRequest({ expression: 'context.tool.last_line=3 && outcome=success', frameId: (await topFrame(s)).id, context: 'repl' });
    assert.equal(evaluated.body.result, 'true');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    assert.equal(s.events.drain('stopped').length, 0);
  });

  for (const [hitCondition, visits] of [
    ['>=3', ['3', '4']],
    ['%2', ['2', '4']],
    ['3', ['3']],
  ] as const) {
    it(`stops at the visits a hit count of ${hitCondition} selects`, async () => {
      const dir = workspace(path.join(fixtures, 'loop'));
      const program = path.join(dir, 'pipeline.dot');
      const s = await session();
      await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'count [shape'), hitCondition }] } });
      const seen: string[] = [];
      for (let i = 0; i < visits.length; i++) {
        await s.events.next('stopped');
        seen.push((await scopeValues(s, 'Run')).values['visit'] ?? '?');
        await s.client.continueRequest({ threadId: 1 });
      }
      await s.events.next('terminated');
      assert.deepEqual(seen, visits);
    });
  }

  it('prints logpoints with context interpolation, without stopping', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'check [shape'), logMessage: 'count is {context.tool.last_line}' }] } });
    await s.events.next('terminated');
    assert.equal(s.events.drain('stopped').length, 0);
    const logged = s.events.bodies<DebugProtocol.OutputEvent['body']>('output').filter((o) => o.output.startsWith('count is'));
    assert.deepEqual(logged.map((o) => o.output.trim()), ['count is 1', 'count is 2', 'count is 3', 'count is 4']);
    assert.equal(logged[0]?.line, lineOf(program, 'check [shape'));
  });

  it('binds a breakpoint on a continuation line to its own statement, where the user put it', async () => {
    const dir = workspaceWith({
      'pipeline.dot': ['digraph p {', '  start [shape=Mdiamond]', '  a [shape=parallelogram,', '     tool_command="echo a > a.txt"]', '  b [shape=parallelogram, tool_command="echo b > b.txt"]', '  done [shape=Msquare]', '  start -> a', '  a -> b', '    -> done', '}', ''].join('\n'),
      'script.json': '{}',
    });
    const program = path.join(dir, 'pipeline.dot');
    const continuation = lineOf(program, 'tool_command="echo a');
    const edgeContinuation = lineOf(program, '-> done');
    const s = await session();
    const { breakpoints } = await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: continuation }, { line: edgeContinuation }] } });
    assert.deepEqual(breakpoints[program]?.map((b) => [b.verified, b.line]), [[true, continuation], [true, edgeContinuation]]);
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'a', 'stops before a, not before b on the next line');
    assert.ok(!fs.existsSync(path.join(dir, 'a.txt')));
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'a -> b', 'the chain a -> b -> done is one statement');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'b -> done');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('reports a function breakpoint on a node or edge the pipeline lacks as unverified, with why', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    const s = await session();
    const initialized = s.client.waitForEvent('initialized');
    await s.client.initializeRequest({ adapterID: 'attractor', pathFormat: 'path', linesStartAt1: true });
    await initialized;
    const set = await s.client.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'count' }, { name: 'cuont' }, { name: 'count->done' }] });
    const [count, typo, edge] = set.body.breakpoints;
    await Promise.all([s.client.configurationDoneRequest(), s.client.launchRequest(scriptedArgs(dir) as DebugProtocol.LaunchRequestArguments)]);
    // Set before launch, they are checked once the program is read.
    const changed = [await s.events.next<DebugProtocol.BreakpointEvent>('breakpoint'), await s.events.next<DebugProtocol.BreakpointEvent>('breakpoint')].map((e) => e.body.breakpoint);
    assert.deepEqual(changed.map((b) => b.id).sort(), [typo?.id, edge?.id].sort());
    for (const b of changed) assert.equal(b.verified, false);
    assert.match(changed.find((b) => b.id === typo?.id)?.message ?? '', /no node cuont/);
    assert.match(changed.find((b) => b.id === edge?.id)?.message ?? '', /no edge count -> done/);
    assert.notEqual(count?.verified, false);
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'count');
    const again = await s.client.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'cuont' }, { name: 'check' }] });
    assert.deepEqual(again.body.breakpoints.map((b) => b.verified), [false, true], 'checked at once while the program is known');
    await s.client.setFunctionBreakpointsRequest({ breakpoints: [] });
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('reports an edge logpoint at the edge\'s line', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    const program = path.join(dir, 'pipeline.dot');
    const edgeLine = lineOf(program, 'check -> done');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: edgeLine, logMessage: 'leaving at {context.tool.last_line}' }] } });
    await s.events.next('terminated');
    const logged = s.events.bodies<DebugProtocol.OutputEvent['body']>('output').filter((o) => o.output.startsWith('leaving at'));
    assert.deepEqual(logged.map((o) => [o.output.trim(), o.line, o.source?.path]), [['leaving at 4', edgeLine, program]]);
  });
});
