// Issue 30.4: a durable step retried after it wrote its gate question (its worker died before Restate
// journaled the step) asks the same durable promise again; followers of the run's events file (serve's
// SSE, VS Code) see the question once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { MAIN_SCOPE } from '../../engine/runtime/events';
import type { HumanQuestion } from '../../engine/runtime/events';
import { StepEventsWriter } from '../../host/restate/run-events-file';
import { RunEventsTail } from '../../host/restate/run-events-tail';

const question = (id: string): HumanQuestion => ({ id, nodeId: 'review', text: 'Ship it?', type: 'multiple_choice', options: [{ key: 'Y', label: 'Yes', to: 'ship' }], freeform: false });

test("a retried step's gate question reaches the events file once; the next gate's is written", () => {
  const logsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-step-events-'));
  try {
    const tail = new RunEventsTail(logsRoot);
    // The step's first attempt, then its retry on another worker: each a writer of its own.
    for (const attempt of [new StepEventsWriter(logsRoot, true), new StepEventsWriter(logsRoot, true)]) {
      attempt.record({ type: 'warning', message: 'attempt' });
      attempt.appendQuestion({ type: 'human:question', scope: MAIN_SCOPE, nodeId: 'review', question: question('gate-3') });
    }
    new StepEventsWriter(logsRoot, true).appendQuestion({ type: 'human:question', scope: MAIN_SCOPE, nodeId: 'review', question: question('gate-5') });
    const events = tail.read();
    assert.deepEqual(events.filter((event) => event.type === 'human:question').map((event) => event.type === 'human:question' && event.question.id), ['gate-3', 'gate-5']);
    assert.equal(events.filter((event) => event.type === 'warning').length, 2, 'what the walk did is recorded for each attempt');
  } finally {
    fs.rmSync(logsRoot, { recursive: true, force: true });
  }
});
