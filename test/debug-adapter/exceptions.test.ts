import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ensureTestBundle, conformanceCases, launch, scriptedArgs, sessionPool, topFrame, workspace, workspaceWith } from './harness';

const { start: session, stopAll } = sessionPool();


function goalGatePipeline(retryTarget: boolean): string {
  return workspaceWith({
    'pipeline.dot': `digraph g {
  start [shape=Mdiamond]
  done [shape=Msquare]
  work [goal_gate=true, max_retries=0, prompt="Work."${retryTarget ? ', retry_target="work"' : ''}]
  start -> work
  work -> done [condition="outcome=fail"]
  work -> done
}
`,
    'script.json': JSON.stringify({ llm: { work: [{ report_outcome: { status: 'fail', failure_reason: 'tests red' } }, { report_outcome: { status: 'success' } }] } }),
  });
}

const cases: readonly { filter: string; dir: () => string; frame: string; description: RegExp; stops?: number }[] = [
  { filter: 'node_failed', dir: () => workspace(path.join(conformanceCases, 'fail-edge-recovers')), frame: 't (finished)', description: /t failed: tool command failed \(exit code 3\)/ },
  { filter: 'retries_exhausted', dir: () => workspace(path.join(conformanceCases, 'retry-exhausted-allow-partial')), frame: 'n (finished)', description: /n used 3 attempts and ended partial_success/ },
  { filter: 'goal_gate_unsatisfied', dir: () => goalGatePipeline(false), frame: 'work (run ended)', description: /goal gate work is unsatisfied: its outcome is fail \(tests red\), and no retry_target/ },
  { filter: 'must_write_violated', dir: () => workspace(path.join(conformanceCases, 'must-write-stale-file-rejected')), frame: 'writer (finished)', description: /must_write violated: report.md predates/ },
  { filter: 'no_matching_edge', dir: () => workspace(path.join(conformanceCases, 'no-matching-edge-fails-loud')), frame: 'review (run ended)', description: /no matching edge from node 'review'/ },
  { filter: 'human_gate', dir: () => workspace(path.join(conformanceCases, 'human-gate-routes')), frame: 'review', description: /human gate review reached/, stops: 2 },
];

describe('debug adapter: exception breakpoint filters', () => {
  before(ensureTestBundle);
  after(stopAll);

  for (const c of cases) {
    it(`stops on ${c.filter}`, async () => {
      const s = await session();
      await launch(s, scriptedArgs(c.dir()), { exceptionFilters: [c.filter] });
      for (let i = 0; i < (c.stops ?? 1); i++) {
        const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
        assert.equal(stopped.body.reason, 'exception');
        assert.match(stopped.body.description ?? '', c.description);
        assert.equal((await topFrame(s)).name, c.frame);
        const info = await s.client.exceptionInfoRequest({ threadId: 1 });
        assert.equal(info.body.exceptionId, c.filter);
        await s.client.continueRequest({ threadId: 1 });
      }
      await s.events.next('terminated');
      assert.equal(s.events.drain('stopped').length, 0);
    });
  }

  it('stops on an unsatisfied goal gate that jumps to its retry_target, at the target', async () => {
    const dir = goalGatePipeline(true);
    const s = await session();
    await launch(s, scriptedArgs(dir), { exceptionFilters: ['goal_gate_unsatisfied'] });
    const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'exception');
    assert.match(stopped.body.description ?? '', /goal gate work is unsatisfied/);
    assert.equal((await topFrame(s)).name, 'work');
    await s.client.continueRequest({ threadId: 1 });
    const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 0);
  });

  it('ends a run held on its failure when the client terminates', async () => {
    const s = await session();
    await launch(s, scriptedArgs(workspace(path.join(conformanceCases, 'no-matching-edge-fails-loud'))), { exceptionFilters: ['no_matching_edge'] });
    await s.events.next('stopped');
    await s.client.terminateRequest({});
    const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 1);
    await s.events.next('terminated');
  });

  for (const [name, edges] of [
    ['routed on its failure', '  work -> done [condition="outcome=fail"]\n  work -> done'],
    ['ending the run', '  work -> done [condition="outcome=success"]'],
  ] as const) {
    it(`decides by the kind of failure, not its words: a node failure that quotes the contracts, ${name}`, async () => {
      const reason = "no matching edge from node 'x'; must_write violated; goal gate x is unsatisfied";
      const dir = workspaceWith({
        'pipeline.dot': `digraph g {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  work [max_retries=0, prompt="Work."]\n  start -> work\n${edges}\n}\n`,
        'script.json': JSON.stringify({ llm: { work: [{ report_outcome: { status: 'fail', failure_reason: reason } }] } }),
      });
      const s = await session();
      await launch(s, scriptedArgs(dir), { exceptionFilters: ['must_write_violated', 'goal_gate_unsatisfied', 'no_matching_edge'] });
      await s.events.next('exited');
      await s.events.next('terminated');
      assert.deepEqual(s.events.drain('stopped').map((e) => e.body as unknown), []);
    });
  }

  it('does not stop when no filter is enabled', async () => {
    const s = await session();
    await launch(s, scriptedArgs(workspace(path.join(conformanceCases, 'no-matching-edge-fails-loud'))));
    const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 1);
    assert.equal(s.events.drain('stopped').length, 0);
  });
});
