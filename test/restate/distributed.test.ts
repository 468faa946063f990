// Issue 19 part 3: durable distributed runs. restate-server, an L4 balancer and two `attractor worker`
// processes; twenty runs submitted with `attractor run --on`; one worker kill -9ed mid-run.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ensureTestBundle } from '../test-bundle';
import { distributedRounds } from './distributed-rounds';

test('twenty runs on two workers survive a kill -9 of one: every run finishes, no finished node runs twice, every gate is answered once', async () => {
  const figures = await distributedRounds(path.join(ensureTestBundle(), 'cli.js'), 20);
  console.log(`# ${figures.runs} runs in ${Math.round(figures.elapsedMs)} ms (${figures.runsPerMinute.toFixed(1)} runs/min), ${figures.interrupted} run(s) interrupted by the kill, all moving again after ${Math.round(figures.recoveryMs)} ms, ${figures.inFlightReruns} in-flight node(s) re-run`);
  assert.deepEqual(figures.failures, []);
  assert.equal(figures.succeeded, 20);
  assert.ok(figures.interrupted > 0, 'the kill -9 came while the worker walked runs');
  assert.deepEqual(figures.finishedNodeReruns, []);
  assert.deepEqual(figures.gateProblems, []);
  assert.equal(figures.gatesAnswered, 20);
  assert.match(figures.secondAnswerRefusal ?? 'accepted', /409.*(already answered|not open)/);
});
