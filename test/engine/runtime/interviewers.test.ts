import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { ConsoleInterviewer } from '../../../engine/runtime/console-interviewer';
import type { HumanQuestion } from '../../../engine/runtime/events';
import { QueueInterviewer } from '../../../engine/runtime/interviewer';
import type { Recording } from '../../../engine/runtime/recording-interviewer';
import { RecordingInterviewer } from '../../../engine/runtime/recording-interviewer';
import { mainPath, runDot } from './harness';

function question(nodeId: string, freeform = false): HumanQuestion {
  return {
    id: `q-${nodeId}`,
    nodeId,
    type: 'multiple_choice',
    text: `Ship ${nodeId}?`,
    options: [
      { key: 'Y', label: '[Y] Yes, ship it', to: 'ship' },
      { key: 'F', label: 'Fix', to: 'fix' },
    ],
    freeform,
  };
}

function consoleOn(): { interviewer: ConsoleInterviewer; input: PassThrough; shown: () => string } {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString('utf8')));
  return { interviewer: new ConsoleInterviewer(input, output), input, shown: () => shown };
}

const never = () => new AbortController().signal;

describe('ConsoleInterviewer', () => {
  it('shows the question with each accelerator once and reads the answer', async () => {
    const { interviewer, input, shown } = consoleOn();
    input.write('y\n');
    assert.deepEqual(await interviewer.ask(question('gate'), never()), { kind: 'option', choice: 'y' });
    assert.match(shown(), /\[\?\] Ship gate\?\n {2}\[Y\] Yes, ship it\n {2}\[F\] Fix\nSelect: /);
  });

  it('keeps answers typed ahead for the following questions', async () => {
    const { interviewer, input } = consoleOn();
    input.write('Y\nF\nFix\n');
    assert.deepEqual(await interviewer.ask(question('one'), never()), { kind: 'option', choice: 'Y' });
    assert.deepEqual(await interviewer.ask(question('two'), never()), { kind: 'option', choice: 'F' });
    assert.deepEqual(await interviewer.ask(question('three'), never()), { kind: 'option', choice: 'Fix' });
  });

  it('waits for an answer written later', async () => {
    const { interviewer, input } = consoleOn();
    const answer = interviewer.ask(question('later'), never());
    setImmediate(() => input.write('F\n'));
    assert.deepEqual(await answer, { kind: 'option', choice: 'F' });
  });

  it('returns free text on a freeform gate, SKIPPED on an empty line or at the end of input', async () => {
    const { interviewer, input } = consoleOn();
    input.write('please add tests first\n\n');
    assert.deepEqual(await interviewer.ask(question('free', true), never()), { kind: 'freeform', text: 'please add tests first' });
    assert.deepEqual(await interviewer.ask(question('empty'), never()), { kind: 'skipped' });
    input.end();
    assert.deepEqual(await interviewer.ask(question('eof'), never()), { kind: 'skipped' });
  });

  it('answers TIMEOUT when its signal aborts, and the next question still gets the next line', async () => {
    const { interviewer, input } = consoleOn();
    const controller = new AbortController();
    const pending = interviewer.ask(question('slow'), controller.signal);
    controller.abort();
    assert.deepEqual(await pending, { kind: 'timeout' });
    input.write('Y\n');
    assert.deepEqual(await interviewer.ask(question('next'), never()), { kind: 'option', choice: 'Y' });
  });
});

describe('RecordingInterviewer', () => {
  it('records each question with its answer, in memory and as durable JSONL', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'recording-')), 'answers.jsonl');
    const recorder = new RecordingInterviewer(new QueueInterviewer({ gate: [{ kind: 'option', choice: 'F' }] }), { file, now: () => Date.UTC(2026, 0, 2) });
    const answer = await recorder.ask(question('gate'), never());
    const skipped = await recorder.ask(question('other'), never());
    assert.deepEqual(answer, { kind: 'option', choice: 'F' });
    assert.deepEqual(skipped, { kind: 'skipped' });
    assert.deepEqual(
      recorder.recordings.map((r) => [r.question.nodeId, r.answer.kind]),
      [
        ['gate', 'option'],
        ['other', 'skipped'],
      ],
    );
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Recording);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]?.ts, '2026-01-02T00:00:00.000Z');
    assert.equal(lines[0]?.question.text, 'Ship gate?');
    assert.deepEqual(lines[0]?.answer, { kind: 'option', choice: 'F' });
  });

  it('records the gates of a real run in the order they were asked', async () => {
    const dot = `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  review [shape=hexagon, label="Review?"]
  deploy [shape=hexagon, label="Deploy?"]
  start -> review
  review -> deploy [label="[A] Approve"]
  review -> done [label="[R] Reject"]
  deploy -> done [label="[G] Go"]
}`;
    const recorder = new RecordingInterviewer(new QueueInterviewer({ review: [{ kind: 'option', choice: 'A' }], deploy: [{ kind: 'option', choice: 'G' }] }));
    const report = await runDot(dot, { interviewer: recorder });
    assert.equal(report.result.status, 'success');
    assert.deepEqual(
      recorder.recordings.map((r) => [r.question.text, r.question.options.map((o) => o.key), r.answer]),
      [
        ['Review?', ['A', 'R'], { kind: 'option', choice: 'A' }],
        ['Deploy?', ['G'], { kind: 'option', choice: 'G' }],
      ],
    );
  });
});

describe('human gate timeouts', () => {
  const gateDot = (gateAttributes: string) => `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  gate [shape=hexagon, label="Ship?", timeout="200ms"${gateAttributes ? `, ${gateAttributes}` : ''}]
  ship [shape=parallelogram, tool_command="echo shipped > outcome.txt"]
  hold [shape=parallelogram, tool_command="echo held > outcome.txt"]
  start -> gate
  gate -> ship [label="[S] Ship"]
  gate -> hold [label="[H] Hold"]
  ship -> done
  hold -> done
}`;

  it('takes human.default_choice when nobody answers before the gate timeout', async () => {
    const { interviewer } = consoleOn();
    const report = await runDot(gateDot('"human.default_choice"="hold"'), { interviewer });
    assert.equal(report.result.status, 'success');
    assert.deepEqual(mainPath(report), ['gate', 'hold']);
    assert.equal(report.read('outcome.txt'), 'held\n');
    const updates = report.status('gate').context_updates as Record<string, unknown>;
    assert.equal(updates['human.gate.timed_out'], true);
    assert.equal(updates['human.gate.label'], '[H] Hold');
  });

  it('matches the default choice by key or label as well as by target', async () => {
    const byKey = await runDot(gateDot('"human.default_choice"="S"'), { interviewer: consoleOn().interviewer });
    assert.equal(byKey.read('outcome.txt'), 'shipped\n');
  });

  it('fails the gate on a timeout without a default choice', async () => {
    const report = await runDot(gateDot(''), { interviewer: consoleOn().interviewer });
    assert.equal(report.result.status, 'fail');
    assert.match(report.result.failureReason ?? '', /timed out after 200 ms/);
    assert.equal(report.read('outcome.txt'), undefined);
  });

  it('a scripted TIMEOUT answer takes the default choice too', async () => {
    const report = await runDot(gateDot('"human.default_choice"="hold"'), { script: { human: { gate: [{ kind: 'timeout' }] } } });
    assert.equal(report.read('outcome.txt'), 'held\n');
  });
});

describe('human gate question', () => {
  it('asks its prompt, else its label, expanded: `$goal` and context keys, `$$` a literal `$`', async () => {
    const asked: string[] = [];
    const interviewer = {
      ask: async (question: HumanQuestion) => {
        asked.push(question.text);
        return { kind: 'option' as const, choice: 'Y' };
      },
    };
    const report = await runDot(
      `digraph G {
  graph [goal="ship"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  a [shape=hexagon, label="Spend $$10 to $goal?"]
  b [shape=hexagon, label="not shown", prompt="Again for $goal, after \${human.gate.label}?"]
  start -> a
  a -> b [label="[Y] Yes"]
  b -> done [label="[Y] Yes"]
}`,
      { interviewer },
    );
    assert.equal(report.result.status, 'success');
    assert.deepEqual(asked, ['Spend $10 to ship?', 'Again for ship, after ${human.gate.label}?']);
  });
});
