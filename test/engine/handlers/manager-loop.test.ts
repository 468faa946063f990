import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Clock } from '../../../engine/runtime/clock';
import { systemClock } from '../../../engine/runtime/clock';
import type { RunEvent } from '../../../engine/runtime/events';
import type { Harness } from '../runtime/harness';
import { isAlive } from '../../processes';
import { pidIn, runDot } from '../runtime/harness';

// The pid file appears whole (written aside, then renamed): the clock below waits for it to exist.
const hangScript = { 'hang.sh': 'echo $$ > hang.pid.tmp && mv hang.pid.tmp hang.pid\nexec sleep 30\n' };

const finishingChild = `digraph child {
  start [shape=Mdiamond]
  done [shape=Msquare]
  a [shape=parallelogram, tool_command="echo a > a.txt"]
  b [shape=parallelogram, tool_command="echo b > b.txt"]
  start -> a -> b -> done
}`;

const hangingChild = `digraph child {
  start [shape=Mdiamond]
  done [shape=Msquare]
  a [shape=parallelogram, tool_command="echo a > a.txt"]
  hang [shape=parallelogram, tool_command="bash hang.sh"]
  start -> a -> hang -> done
}`;

/** A parent whose manager node `boss` carries `attributes`; `report` records what the manager saw. */
function managerDot(attributes: string, graphAttributes = '"stack.child_dotfile"="child.dot"'): string {
  return `digraph parent {
  graph [${graphAttributes}]
  start [shape=Mdiamond]
  done [shape=Msquare]
  boss [shape=house${attributes ? `, ${attributes}` : ''}]
  report [shape=parallelogram, tool_command="echo \${stack.child.status} \${stack.child.completed_count} > seen.txt"]
  start -> boss -> report -> done
}`;
}

/**
 * The injected clock: records every poll the manager asks for and, instead of sleeping that long,
 * waits until `ready()` holds (a file the child writes), so what each cycle observes is decided by
 * the child's progress, not by timing.
 */
function pollingClock(ready: () => boolean): Clock & { readonly polls: number[] } {
  const polls: number[] = [];
  return {
    ...systemClock,
    polls,
    async sleep(ms, signal) {
      polls.push(ms);
      do await systemClock.sleep(10, signal);
      while (!ready());
    },
  };
}

/** Tracks the run directory from run:start so clocks and assertions can look at its files. */
function workingDir(): { onEvent: (event: RunEvent) => void; file: (name: string) => string } {
  let dir = '';
  return {
    onEvent: (event) => {
      if (event.type === 'run:start') dir = path.dirname(event.logsRoot);
    },
    file: (name) => path.join(dir, name),
  };
}

/** Supervises the child that hangs at `hang`; the manager's clock polls until the hang has started. */
function superviseHangingChild(dot: string): Promise<Harness> {
  const dir = workingDir();
  return runDot(dot, {
    files: { 'child.dot': hangingChild, ...hangScript },
    clock: pollingClock(() => fs.existsSync(dir.file('hang.pid'))),
    onEvent: dir.onEvent,
  });
}

function updates(report: Harness, node = 'boss'): Record<string, unknown> {
  return report.status(node).context_updates as Record<string, unknown>;
}

describe('manager loop', () => {
  it('starts the child, observes it to completion and succeeds with its verdict', async () => {
    const clock = pollingClock(() => true);
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
    assert.equal(report.read('seen.txt'), 'completed 4\n');
    assert.ok(clock.polls.every((ms) => ms === 2000), `polls ${clock.polls.join(', ')}`);
    // The child has its own run directory and trace, scoped under the manager.
    const childTrace = report.read('.run/boss/subpipeline/trace.jsonl') ?? '';
    assert.match(childTrace, /"node_id":"b".*"scope":"main>sub:boss"/);
  });

  it('fails when the child fails, carrying the child reason', async () => {
    const failing = finishingChild.replace('echo b > b.txt', 'exit 4');
    const report = await runDot(managerDot('"manager.poll_interval"="1s"'), { files: { 'child.dot': failing }, clock: pollingClock(() => true) });
    assert.equal(report.result.status, 'fail');
    assert.equal(report.status('boss').outcome, 'fail');
    assert.match(report.result.failureReason ?? '', /child child\.dot failed.*exit code 4/);
    assert.equal(updates(report)['stack.child.status'], 'failed');
  });

  it('ends when the stop condition holds and kills the child still running', async () => {
    const report = await superviseHangingChild(managerDot('"manager.stop_condition"="stack.child.active_node=hang", "manager.poll_interval"="1s"'));
    assert.equal(report.result.status, 'success');
    assert.match(String(report.status('boss').notes), /stop condition satisfied/);
    assert.equal(updates(report)['stack.child.status'], 'running');
    assert.equal(updates(report)['stack.child.active_node'], 'hang');
    assert.equal(isAlive(pidIn(report, 'hang.pid')), false, 'the supervised child process must be gone');
    assert.doesNotMatch(report.read('.run/boss/subpipeline/trace.jsonl') ?? '', /"node_id":"hang"/);
  });

  it('steers by writing its prompt into the active child stage directory, once per visit', async () => {
    const attributes = '"manager.actions"="observe,steer,wait", prompt="Focus on $goal", "manager.stop_condition"="stack.child.active_node=hang", "manager.poll_interval"="1s"';
    const report = await superviseHangingChild(managerDot(attributes, '"stack.child_dotfile"="child.dot", goal="the failing tests"'));
    assert.equal(report.result.status, 'success');
    assert.equal(report.read('.run/boss/subpipeline/hang/steer.md'), 'Focus on the failing tests\n');
    assert.ok(Number(updates(report)['stack.manager.steers']) >= 1);
  });

  it('fails after manager.max_cycles without the child finishing', async () => {
    const report = await superviseHangingChild(managerDot('"manager.max_cycles"=3, "manager.poll_interval"="1s"'));
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /max cycles exceeded: 3 manager cycles/);
    assert.equal(report.status('boss').is_explicit, false);
    assert.equal(updates(report)['stack.manager.cycles'], 3);
    assert.equal(isAlive(pidIn(report, 'hang.pid')), false);
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
    const noChild = await runDot(managerDot('', 'goal="x"'));
    assert.equal(noChild.result.status, 'fail');
    assert.match(noChild.result.failureReason ?? '', /no stack.child_dotfile/);
    assert.equal(noChild.status('boss').is_explicit, false);
    const steerWithoutPrompt = await runDot(managerDot('"manager.actions"="observe,steer"'), { files: { 'child.dot': finishingChild } });
    assert.match(steerWithoutPrompt.result.failureReason ?? '', /steer, but the node has no prompt/);
    const invalidChild = await runDot(managerDot('"manager.poll_interval"="1s"'), { files: { 'child.dot': 'digraph child { a -> b }' }, clock: pollingClock(() => true) });
    assert.match(invalidChild.result.failureReason ?? '', /sub-pipeline .*child\.dot is invalid: start_node/);
  });
});
