import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Harness } from '../runtime/harness';
import { instantClock, recordedProcessAlive, runDot } from '../runtime/harness';
import { toolChain } from '../../fixtures/tool-pipelines';

const finishingChild = toolChain('child', { a: 'echo a >> a.txt', b: 'echo b > b.txt' });

/** Fails its first `n - 1` sprints (counted in sprints.txt), succeeds from the n-th. */
function childSucceedingAt(n: number): string {
  return `digraph child {
  start [shape=Mdiamond]
  done [shape=Msquare]
  count [shape=parallelogram, tool_command="echo x >> sprints.txt"]
  check [shape=parallelogram, tool_command="test $(wc -l < sprints.txt) -ge ${n}"]
  start -> count -> check -> done
}`;
}

// The pid file appears whole (written aside, then renamed).
const hangScript = { 'hang.sh': 'echo $$ > hang.pid.tmp && mv hang.pid.tmp hang.pid\nexec sleep 30\n' };
const hangingChild = `digraph child {
  start [shape=Mdiamond]
  done [shape=Msquare]
  hang [shape=parallelogram, tool_command="bash hang.sh"]
  start -> hang -> done
}`;

/** A parent whose manager node `boss` carries `attributes`; `report` records what the manager saw. */
function managerDot(attributes: string, graphAttributes = '"stack.child_dotfile"="child.dot"'): string {
  return `digraph parent {
  graph [${graphAttributes}]
  start [shape=Mdiamond]
  done [shape=Msquare]
  boss [shape=house${attributes ? `, ${attributes}` : ''}]
  report [shape=parallelogram, tool_command="echo \${stack.child.status} \${stack.child.completed_count} \${manager.cycles} > seen.txt"]
  start -> boss -> report -> done
}`;
}

function updates(report: Harness, node = 'boss'): Record<string, unknown> {
  return report.status(node).context_updates as Record<string, unknown>;
}

describe('manager loop (sprints, as the reference runs them)', () => {
  it('runs the child to completion and succeeds with its verdict, without waiting', async () => {
    const clock = instantClock();
    const report = await runDot(managerDot('"manager.poll_interval"="2s"'), { files: { 'child.dot': finishingChild }, clock });
    assert.equal(report.result.status, 'success');
    assert.equal(report.status('boss').outcome, 'success');
    assert.equal(report.status('boss').is_explicit, true);
    assert.equal(report.read('b.txt'), 'b\n');
    const seen = updates(report);
    assert.equal(seen['stack.child.status'], 'completed');
    assert.equal(seen['stack.child.outcome'], 'success');
    assert.equal(seen['stack.child.last_node'], 'done');
    assert.equal(seen['stack.child.completed_count'], 4);
    assert.equal(seen['manager.cycle_1.status'], 'success');
    assert.equal(seen.last_stage, 'boss');
    assert.equal(report.read('seen.txt'), 'completed 4 1\n');
    assert.deepEqual(clock.sleeps, [], 'a succeeding sprint ends the loop at once');
    // The child has its own run directory and trace, scoped under the manager.
    assert.match(report.read('.run/boss/subpipeline/trace.jsonl') ?? '', /"node_id":"b".*"scope":"main>sub:boss"/);
  });

  it('runs another sprint after a failed one, waiting poll_interval between them, on a fresh context each time', async () => {
    const clock = instantClock();
    const report = await runDot(managerDot('"manager.poll_interval"="3s"'), { files: { 'child.dot': childSucceedingAt(3) }, clock });
    assert.equal(report.result.status, 'success');
    assert.equal(report.read('sprints.txt'), 'x\nx\nx\n');
    assert.deepEqual(clock.sleeps.filter((ms) => ms === 3000).length, 2);
    const seen = updates(report);
    assert.deepEqual([seen['manager.cycle_1.status'], seen['manager.cycle_2.status'], seen['manager.cycle_3.status']], ['fail', 'fail', 'success']);
    assert.equal(seen['manager.cycles'], 3);
    assert.equal(report.status('boss').cycle_index, 2);
    // Each sprint starts again from the child's start: three visits of each child node.
    const childTrace = (report.read('.run/boss/subpipeline/trace.jsonl') ?? '').trim().split('\n');
    assert.equal(childTrace.filter((line) => line.includes('"node_id":"count"')).length, 3);
  });

  it('fails once manager.max_cycles sprints failed, naming the last child failure', async () => {
    const report = await runDot(managerDot('"manager.max_cycles"=2'), { files: { 'child.dot': childSucceedingAt(5) }, clock: instantClock() });
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /manager exhausted 2 cycle\(s\); the last child run ended fail: .*exit code 1/);
    assert.equal(report.status('boss').is_explicit, false);
    assert.equal(updates(report)['manager.cycles'], 2);
    assert.equal(report.read('sprints.txt'), 'x\nx\n');
  });

  it('with a stop condition, only the condition ends the loop, and the manager takes the child status', async () => {
    const stopOnFail = await runDot(managerDot('"manager.stop_condition"="outcome=fail"'), { files: { 'child.dot': childSucceedingAt(5) }, clock: instantClock() });
    assert.equal(stopOnFail.status('boss').outcome, 'fail', 'a stop condition that holds on a failed sprint ends with its failure');
    assert.match(String(stopOnFail.status('boss').notes), /stop condition satisfied/);
    assert.equal(stopOnFail.read('sprints.txt'), 'x\n');
    const untilSecond = await runDot(managerDot('"manager.stop_condition"="context.manager.cycles_completed=2"'), { files: { 'child.dot': finishingChild }, clock: instantClock() });
    assert.equal(untilSecond.result.status, 'success');
    assert.equal(untilSecond.read('a.txt'), 'a\na\n', 'a successful sprint does not stop a loop whose stop condition does not hold');
  });

  it('supervises the in-graph child from its first outgoing edge to the exit, and steers the next sprint', async () => {
    const dot = `digraph parent {
  start [shape=Mdiamond]
  done [shape=Msquare]
  boss [shape=house, "manager.actions"="observe,steer", "manager.max_cycles"=3]
  work [shape=parallelogram, tool_command="echo x >> sprints.txt; printf '%s\\n' \\"\${manager.steering}\\" >> steering.txt"]
  check [shape=parallelogram, tool_command="test $(wc -l < sprints.txt) -ge 2"]
  after [shape=parallelogram, tool_command="echo after > after.txt"]
  start -> boss
  boss -> work
  work -> check -> done
  boss -> after [weight=5]
  after -> done
}`;
    const report = await runDot(dot);
    assert.equal(report.result.status, 'success');
    assert.equal(report.read('sprints.txt'), 'x\nx\n');
    assert.match(report.read('steering.txt') ?? '', /^\n\[Manager Steering — Cycle 1 of 3\]\nStatus: fail\n/);
    assert.equal(report.read('after.txt'), 'after\n', 'the manager routes on by weight once it is done');
    assert.equal(updates(report)['stack.manager.steers'], 1);
    const scopes = new Set(report.trace.filter((record) => record.node_id === 'work').map((record) => record.scope));
    assert.deepEqual([...scopes], ['main>branch:boss:cycle_1', 'main>branch:boss:cycle_2']);
  });

  it("cancels a child still running when the manager node's timeout expires: no process outlives the node", async () => {
    const report = await runDot(managerDot('timeout="2s"'), { files: { 'child.dot': hangingChild, ...hangScript } });
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /timed out after 2000 ms/);
    assert.equal(recordedProcessAlive(report, 'hang.pid'), false, 'the supervised child process must be gone');
  });

  it('without autostart evaluates its stop condition over the context only', async () => {
    const dot = `digraph parent {
  graph ["stack.child_dotfile"="child.dot"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  setup [shape=parallelogram, parse_json=true, tool_command="echo '{\\"ready\\": \\"yes\\"}'"]
  boss [shape=house, "stack.child_autostart"=false, "manager.stop_condition"="context.ready=yes"]
  start -> setup -> boss -> done
}`;
    const report = await runDot(dot, { files: { 'child.dot': finishingChild } });
    assert.equal(report.result.status, 'success');
    assert.equal(updates(report)['stack.manager.cycles'], 1);
    assert.equal(report.read('a.txt'), undefined, 'no child was started');
  });

  it('refuses a configuration it cannot honour, naming the attribute', async () => {
    const badActions = await runDot(managerDot('"manager.actions"="observe,dance"'), { files: { 'child.dot': finishingChild } });
    assert.match(badActions.result.failureReason ?? '', /manager\.actions: unknown action "dance"/);
    assert.equal(badActions.status('boss').is_explicit, false);
    const invalidChild = await runDot(managerDot('"manager.max_cycles"=1'), { files: { 'child.dot': 'digraph child { a -> b }' } });
    assert.match(invalidChild.result.failureReason ?? '', /sub-pipeline .*child\.dot is invalid: start_node/);
  });

  it('a child that cannot be loaded fails the manager at once, a configuration failure: no sprint is tried again', async () => {
    const clock = instantClock();
    const report = await runDot(managerDot('"manager.poll_interval"="1s"'), { files: { 'child.dot': 'digraph child { a -> b }' }, clock });
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /^sub-pipeline .*child\.dot is invalid: start_node/);
    assert.equal(report.status('boss').is_explicit, false);
    assert.equal(updates(report)['manager.cycles'], 1);
    assert.deepEqual(clock.sleeps, [], 'no wait for a next sprint');
  });
});
