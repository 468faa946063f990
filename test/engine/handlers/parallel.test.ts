import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ParallelResult } from '../../../engine/runtime/parallel-results';
import type { Harness } from '../runtime/harness';
import { mainPath, recordedProcessAlive, runDot } from '../runtime/harness';

// Branch scripts. Ordering between branches goes through files, never through timing.
const scripts = {
  // A branch that runs until it is killed; its pid is the sleeping process itself. The pid file appears
  // whole (written aside, then renamed): a branch waiting for it must not see it empty.
  'slow.sh': 'echo $$ > "$1.pid.tmp" && mv "$1.pid.tmp" "$1.pid"\nexec sleep 30\n',
  // Waits (up to 10 s) for a file another branch writes, then succeeds or fails as asked.
  'after.sh': 'for i in $(seq 1 200); do [ -f "$1" ] && break; sleep 0.05; done\n[ -f "$1" ] || exit 3\necho "$2" > "$2.txt"\n[ "$3" = fail ] && exit 1\nexit 0\n',
  // Counts the branches running at once into counts.txt.
  'count.sh': 'mkdir -p running\ntouch "running/$1"\nls running | wc -l >> counts.txt\nsleep 0.1\nls running | wc -l >> counts.txt\nrm "running/$1"\n',
};

/** A fan-out `fan` with the given attributes and branches (id → tool_command), joined at `join`. */
function fanOutDot(attributes: string, branches: Record<string, string>, join = 'join [shape=tripleoctagon]'): string {
  const ids = Object.keys(branches);
  return `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  fan [shape=component${attributes ? `, ${attributes}` : ''}]
  ${ids.map((id) => `${id} [shape=parallelogram, tool_command=${JSON.stringify(branches[id])}]`).join('\n  ')}
  ${join}
  after [shape=parallelogram, tool_command="echo joined > joined.txt"]
  start -> fan
  ${ids.map((id) => `fan -> ${id} -> join`).join('\n  ')}
  join -> after -> done
}`;
}

function results(report: Harness, node = 'fan'): ParallelResult[] {
  const updates = report.status(node).context_updates as Record<string, unknown>;
  return updates['parallel.results'] as ParallelResult[];
}

function statusOf(report: Harness, id: string): string | undefined {
  return results(report).find((r) => r.id === id)?.status;
}

describe('parallel fan-out: join policies', () => {
  it('wait_all (the default) runs every branch on its own context and continues once at the fan-in', async () => {
    const report = await runDot(fanOutDot('', { b1: 'echo one > b1.txt; echo one', b2: 'echo two > b2.txt; echo two', b3: 'echo three > b3.txt; echo three' }), { files: scripts });
    assert.equal(report.result.status, 'success');
    assert.deepEqual(mainPath(report), ['fan', 'join', 'after']);
    assert.equal(report.read('joined.txt'), 'joined\n');
    assert.deepEqual(results(report).map((r) => [r.id, r.status]), [['b1', 'success'], ['b2', 'success'], ['b3', 'success']]);
    assert.equal(report.status('fan').outcome, 'success');
    assert.equal(report.status('fan').is_explicit, true);
    // Branch nodes are traced with their scope; each branch's context changes are kept apart.
    assert.deepEqual(report.trace.filter((r) => r.scope).map((r) => r.scope).sort(), ['main>branch:fan:b1', 'main>branch:fan:b2', 'main>branch:fan:b3']);
    assert.deepEqual(results(report).find((r) => r.id === 'b2')?.context, { 'tool.output': 'two\n', 'tool.last_line': 'two' });
    assert.equal(results(report).find((r) => r.id === 'b3')?.context['tool.last_line'], 'three');
    // The branches' changes stay in their clones: the main context after the fan-out never saw them.
    const afterFan = report.events.find((e) => e.type === 'checkpoint' && e.nodeId === 'fan');
    assert.ok(afterFan && afterFan.type === 'checkpoint');
    assert.equal(afterFan.state.context['tool.last_line'], undefined);
    assert.equal(afterFan.state.nextNodeId, 'join');
    const start = report.events.find((e) => e.type === 'parallel:start');
    const end = report.events.find((e) => e.type === 'parallel:end');
    assert.deepEqual(start && 'branches' in start ? start.branches : undefined, ['b1', 'b2', 'b3']);
    assert.deepEqual(end && 'succeeded' in end ? [end.succeeded, end.failed] : undefined, [3, 0]);
  });

  it('wait_all with a failed branch is PARTIAL_SUCCESS and the fan-in picks a successful one', async () => {
    const report = await runDot(fanOutDot('', { a_bad: 'echo oops >&2; exit 2', b_good: 'echo fine' }), { files: scripts });
    assert.equal(report.result.status, 'success');
    assert.equal(report.status('fan').outcome, 'partial_success');
    assert.equal(statusOf(report, 'a_bad'), 'fail');
    assert.match(results(report).find((r) => r.id === 'a_bad')?.failure_reason ?? '', /exit code 2/);
    assert.equal(report.result.state.context['parallel.fan_in.best_id'], 'b_good');
    assert.equal(report.result.state.context['parallel.fan_in.best_outcome'], 'success');
  });

  it('wait_all where every branch fails reaches the fan-in, which fails because every candidate failed', async () => {
    const report = await runDot(fanOutDot('', { b1: 'exit 1', b2: 'exit 1' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.equal(report.status('fan').outcome, 'partial_success');
    assert.equal(report.status('join').outcome, 'fail');
    assert.match(report.result.failureReason ?? '', /all 2 candidates failed/);
    assert.equal(report.read('joined.txt'), undefined);
  });

  it('first_success finishes at the first success and kills the branches still running', async () => {
    const report = await runDot(fanOutDot('join_policy=first_success', { fast: 'bash after.sh slow.pid fast', slow: 'bash slow.sh slow' }), { files: scripts });
    assert.equal(report.result.status, 'success');
    assert.equal(report.status('fan').outcome, 'success');
    assert.equal(statusOf(report, 'fast'), 'success');
    const slow = results(report).find((r) => r.id === 'slow');
    assert.equal(slow?.status, 'skipped');
    assert.equal(slow?.cancelled, true);
    assert.equal(recordedProcessAlive(report, 'slow.pid'), false, 'the cancelled branch process must be gone');
    // A cancelled node is not a result: it leaves no trace record.
    assert.equal(report.trace.some((r) => r.node_id === 'slow'), false);
    const slowEnd = report.events.find((e) => e.type === 'node:end' && e.nodeId === 'slow');
    assert.equal(slowEnd?.type === 'node:end' ? slowEnd.outcome.notes : undefined, 'cancelled while running');
    assert.equal(report.events.filter((e) => e.type === 'node:start').length, report.events.filter((e) => e.type === 'node:end').length);
    assert.equal(report.result.state.context['parallel.fan_in.best_id'], 'fast');
  });

  it('first_success with no success fails the fan-out without routing into a branch', async () => {
    const report = await runDot(fanOutDot('join_policy=first_success', { b1: 'exit 1', b2: 'exit 1' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.equal(report.status('fan').outcome, 'fail');
    assert.deepEqual(mainPath(report), ['fan']);
  });

  it('k_of_n is done once k branches succeed and cancels the rest', async () => {
    const report = await runDot(fanOutDot('join_policy=k_of_n, k=2', { one: 'bash after.sh slow.pid one', two: 'bash after.sh slow.pid two', slow: 'bash slow.sh slow' }), { files: scripts });
    assert.equal(report.result.status, 'success');
    assert.equal(report.status('fan').outcome, 'success');
    assert.equal(statusOf(report, 'slow'), 'skipped');
    assert.equal(recordedProcessAlive(report, 'slow.pid'), false);
    assert.match(String(report.status('fan').notes), /k_of_n \(k=2\).*2 of 3 branches succeeded/);
  });

  it('k_of_n fails as soon as k successes are out of reach, cancelling what still runs', async () => {
    const report = await runDot(fanOutDot('join_policy=k_of_n, k=2', { bad1: 'bash after.sh slow.pid bad1 fail', bad2: 'bash after.sh slow.pid bad2 fail', slow: 'bash slow.sh slow' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.equal(report.status('fan').outcome, 'fail');
    assert.equal(report.status('fan').is_explicit, true);
    assert.match(report.result.failureReason ?? '', /only 1 of 3 branches can still succeed/);
    assert.equal(recordedProcessAlive(report, 'slow.pid'), false);
  });

  it('k_of_n with k larger than the branch count fails before starting any branch', async () => {
    const report = await runDot(fanOutDot('join_policy=k_of_n, k=3', { b1: 'echo x > b1.txt', b2: 'echo x > b2.txt' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /3 successes needed but there are only 2 branches/);
    assert.equal(report.read('b1.txt'), undefined);
    assert.deepEqual(results(report).map((r) => r.status), ['skipped', 'skipped']);
  });

  it('quorum needs strictly more than the fraction: half of two is not enough', async () => {
    const report = await runDot(fanOutDot('join_policy=quorum, quorum=0.5', { good: 'echo ok', bad: 'exit 1' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.equal(report.status('fan').outcome, 'fail');
  });

  it('quorum is satisfied by a strict majority and cancels the rest', async () => {
    const report = await runDot(fanOutDot('join_policy=quorum, quorum=0.5', { one: 'bash after.sh slow.pid one', two: 'bash after.sh slow.pid two', slow: 'bash slow.sh slow' }), { files: scripts });
    assert.equal(report.result.status, 'success');
    assert.equal(report.status('fan').outcome, 'success');
    assert.equal(recordedProcessAlive(report, 'slow.pid'), false);
  });
});

describe('parallel fan-out: error policies', () => {
  it('fail_fast: the first failed branch cancels the rest and fails the fan-out', async () => {
    const report = await runDot(fanOutDot('error_policy=fail_fast', { bad: 'bash after.sh slow.pid bad fail', slow: 'bash slow.sh slow', good: 'echo ok' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.equal(report.status('fan').outcome, 'fail');
    assert.match(report.result.failureReason ?? '', /error_policy=fail_fast/);
    assert.equal(recordedProcessAlive(report, 'slow.pid'), false);
    assert.deepEqual(mainPath(report), ['fan']);
  });

  it('fail_fast takes the fan-out retry_target instead of a branch edge', async () => {
    const dot = fanOutDot('error_policy=fail_fast, retry_target=recover', { bad: 'exit 1', good: 'echo ok' }).replace(
      'join -> after -> done',
      // The conditional edge only makes `recover` reachable for validation; a joined fan-in never takes it.
      'join -> after -> done\n  recover [shape=parallelogram, tool_command="echo recovered > recovered.txt"]\n  join -> recover [condition="outcome=fail"]\n  recover -> done',
    );
    const report = await runDot(dot, { files: scripts });
    assert.equal(report.read('recovered.txt'), 'recovered\n');
    assert.deepEqual(mainPath(report), ['fan', 'recover']);
  });

  it('continue (the default) lets the other branches finish', async () => {
    const report = await runDot(fanOutDot('error_policy=continue', { bad: 'exit 1', good: 'bash after.sh bad.done good', marker: 'touch bad.done' }), { files: scripts });
    assert.equal(report.status('fan').outcome, 'partial_success');
    assert.equal(report.read('good.txt'), 'good\n');
  });

  it('ignore leaves failed branches out of the join and of parallel.results', async () => {
    const report = await runDot(fanOutDot('error_policy=ignore', { bad: 'exit 1', good: 'echo ok' }), { files: scripts });
    assert.equal(report.result.status, 'success');
    assert.equal(report.status('fan').outcome, 'success');
    assert.deepEqual(results(report).map((r) => r.id), ['good']);
    assert.deepEqual((report.status('fan').context_updates as Record<string, unknown>)['parallel.ignored'], ['bad']);
  });

  it('ignore with nothing but failures fails the join', async () => {
    const report = await runDot(fanOutDot('error_policy=ignore', { b1: 'exit 1', b2: 'exit 1' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /every branch failed/);
  });
});

describe('parallel fan-out: bounded concurrency', () => {
  const countsOf = (report: Harness) => (report.read('counts.txt') ?? '').split('\n').filter(Boolean).map(Number);
  const sixBranches = Object.fromEntries(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => [id, `bash count.sh ${id}`]));

  it('never runs more than max_parallel branches at once', async () => {
    const report = await runDot(fanOutDot('max_parallel=2', sixBranches), { files: scripts });
    assert.equal(report.result.status, 'success');
    const counts = countsOf(report);
    assert.equal(counts.length, 12, 'every branch ran');
    assert.ok(Math.max(...counts) <= 2, `saw ${Math.max(...counts)} branches at once`);
  });

  it('runs at most 4 at once by default', async () => {
    const report = await runDot(fanOutDot('', sixBranches), { files: scripts });
    const counts = countsOf(report);
    assert.equal(counts.length, 12);
    assert.ok(Math.max(...counts) <= 4, `saw ${Math.max(...counts)} branches at once`);
  });

  it("a run's default max_parallel bounds fan-outs that set none, and a node's own max_parallel wins", async () => {
    const byDefault = await runDot(fanOutDot('', sixBranches), { files: scripts, defaultMaxParallel: 1 });
    assert.deepEqual([...new Set(countsOf(byDefault))], [1]);
    const own = await runDot(fanOutDot('max_parallel=6', sixBranches), { files: scripts, defaultMaxParallel: 1 });
    assert.ok(Math.max(...countsOf(own)) > 1, 'the node allows more than the run default');
  });

  it('max_parallel=1 runs the branches one after another', async () => {
    const report = await runDot(fanOutDot('max_parallel=1', sixBranches), { files: scripts });
    assert.deepEqual([...new Set(countsOf(report))], [1]);
  });
});

describe('parallel fan-out: structure', () => {
  it('a fan-out nested in a branch joins at its own fan-in before the outer join', async () => {
    const dot = `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  outer [shape=component]
  b1 [shape=parallelogram, tool_command="echo b1 > b1.txt"]
  inner [shape=component]
  i1 [shape=parallelogram, tool_command="echo i1 > i1.txt"]
  i2 [shape=parallelogram, tool_command="echo i2 > i2.txt"]
  inner_join [shape=tripleoctagon]
  b2 [shape=parallelogram, tool_command="echo b2 > b2.txt"]
  outer_join [shape=tripleoctagon]
  start -> outer
  outer -> b1 -> inner
  inner -> i1 -> inner_join
  inner -> i2 -> inner_join
  inner_join -> outer_join
  outer -> b2 -> outer_join
  outer_join -> done
}`;
    const report = await runDot(dot);
    assert.equal(report.result.status, 'success');
    assert.deepEqual(mainPath(report), ['outer', 'outer_join']);
    for (const file of ['b1.txt', 'b2.txt', 'i1.txt', 'i2.txt']) assert.ok(report.read(file), `${file} written`);
    const scopes = new Map(report.trace.map((r) => [r.node_id, r.scope]));
    assert.equal(scopes.get('i1'), 'main>branch:outer:b1>branch:inner:i1');
    assert.equal(scopes.get('inner_join'), 'main>branch:outer:b1');
    assert.deepEqual(results(report, 'outer').map((r) => r.id), ['b1', 'b2']);
  });

  it('a parallel fan-out inside a sub-pipeline runs and joins there', async () => {
    const child = fanOutDot('', { x: 'echo x > x.txt', y: 'echo y > y.txt' });
    const parent = `digraph p {
  start [shape=Mdiamond]
  done [shape=Msquare]
  sub [shape=folder, dot_file="child.dot"]
  start -> sub -> done
}`;
    const report = await runDot(parent, { files: { 'child.dot': child } });
    assert.equal(report.result.status, 'success');
    assert.equal(report.read('x.txt'), 'x\n');
    assert.equal(report.read('joined.txt'), 'joined\n');
    const childTrace = (report.read('.run/sub/subpipeline/trace.jsonl') ?? '').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { node_id: string; scope?: string });
    assert.deepEqual(childTrace.filter((r) => r.node_id === 'x').map((r) => r.scope), ['main>sub:sub>branch:fan:x']);
    assert.ok(childTrace.some((r) => r.node_id === 'join' && r.scope === 'main>sub:sub'));
  });

  it('fails loudly when the branches reach no fan-in', async () => {
    const dot = `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  fan [shape=component]
  a [shape=parallelogram, tool_command="echo a > a.txt"]
  b [shape=parallelogram, tool_command="echo b > b.txt"]
  start -> fan
  fan -> a -> done
  fan -> b -> done
}`;
    const report = await runDot(dot);
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /reach no fan-in/);
    assert.equal(report.read('a.txt'), undefined);
  });

  it('a fan-out timeout stops its branches and fails without routing into a branch', async () => {
    const report = await runDot(fanOutDot('timeout="1s"', { s1: 'bash slow.sh s1', quick: 'echo quick > quick.txt' }), { files: scripts });
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /timed out after 1000 ms/);
    assert.equal(recordedProcessAlive(report, 's1.pid'), false);
    assert.deepEqual(mainPath(report), ['fan']);
  });

  it('cancelling the run kills running branches and ends the run cancelled', async () => {
    const controller = new AbortController();
    const report = await runDot(fanOutDot('', { s1: 'bash slow.sh s1', s2: 'bash slow.sh s2' }), {
      files: scripts,
      signal: controller.signal,
      onEvent: (event) => {
        // Cancel once both branch processes have started (their pid files exist).
        if (event.type === 'run:start') void abortWhenFilesExist(controller, ['s1.pid', 's2.pid'].map((f) => path.join(path.dirname(event.logsRoot), f)));
      },
    });
    assert.equal(report.result.status, 'cancelled');
    assert.equal(report.events.filter((e) => e.type === 'node:start').length, report.events.filter((e) => e.type === 'node:end').length);
    assert.equal(recordedProcessAlive(report, 's1.pid'), false);
    assert.equal(recordedProcessAlive(report, 's2.pid'), false);
    assert.equal(report.trace.some((r) => r.node_id === 's1' || r.node_id === 'fan'), false);
  });
});

async function abortWhenFilesExist(controller: AbortController, files: readonly string[]): Promise<void> {
  while (!files.every((file) => fs.existsSync(file))) await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
}
