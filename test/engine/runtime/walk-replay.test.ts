// The walk is a pure step (engine/runtime/walk-step.ts) whose inputs the journal records: a recorded
// run, fed back through the step alone (no handler, no shell, no clock), takes the same path and
// reaches the same state at every node boundary.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildAdjacency } from '../../../engine/model/graph';
import type { Graph } from '../../../engine/model/graph';
import { preparePipeline } from '../../../engine/prepare';
import { recordedWalk } from '../../../engine/runtime/boundary-history';
import { RunContext } from '../../../engine/runtime/context';
import { MAIN_SCOPE } from '../../../engine/runtime/events';
import type { MutableRunState } from '../../../engine/runtime/journal';
import { applyDelta } from '../../../engine/runtime/journal';
import type { RunState } from '../../../engine/runtime/state';
import type { WalkEffect, WalkInput, WalkPhase } from '../../../engine/runtime/walk-step';
import { step } from '../../../engine/runtime/walk-step';
import type { WalkState } from '../../../engine/runtime/walk-state';
import { applyChange, positionOf, walkStateFrom } from '../../../engine/runtime/walk-state';
import { hashSource } from '../../../engine/runtime/runner';
import { runDot } from './harness';

// Tool nodes whose retries come from must_write (the artifact appears on the second attempt), a
// failure routed back by retry_target, a loop_restart with feedback, a goal gate, and an LLM node
// that asks to be retried and writes the context the last edge's condition reads.
const pipeline = `digraph replayed {
  graph [goal="replay the walk"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  build [shape=parallelogram, must_write="out.txt", max_retries=2, tool_command="n=$(cat tries 2>/dev/null || echo 0); n=$((n+1)); echo $n > tries; if [ $n -ge 2 ]; then echo built $n > out.txt; fi; echo attempt $n"]
  check [shape=parallelogram, goal_gate=true, retry_target=fix, tool_command="if [ -f checked ]; then echo gate_pass; else touch checked; echo gate_fail; exit 1; fi"]
  fix [shape=parallelogram, tool_command="echo fixed"]
  review [prompt="review", max_retries=2, feedback_from=check]
  ship [shape=parallelogram, tool_command="echo shipped"]
  start -> build -> check
  check -> review [condition="outcome=success"]
  fix -> build [loop_restart=true]
  review -> ship [condition="context.verdict=ship"]
  review -> fix [condition="context.verdict!=ship"]
  ship -> done
}`;

interface Replayed {
  readonly phase: WalkPhase;
  readonly effects: WalkEffect[];
  readonly inputs: WalkInput[];
}

/** What a boundary's state holds of the walk (the rest is the runner's: times, pid, snapshots). */
function walkOf(state: RunState | WalkState): unknown {
  const context = state.context instanceof RunContext ? state.context.snapshot() : state.context;
  return JSON.parse(JSON.stringify({ ...positionOf(state), context, threads: state.threads }));
}

/** Feeds a run directory's recorded inputs through the step, checking the state at every recorded boundary. */
function replay(graph: Graph, logsRoot: string): Replayed {
  const recorded = recordedWalk(logsRoot);
  assert.ok(recorded, `no recorded walk in ${logsRoot}`);
  const logic = { graph, adjacency: buildAdjacency(graph), scope: MAIN_SCOPE, exitSemantics: true };
  const state = walkStateFrom(recorded.base);
  const expected = structuredClone(recorded.base) as MutableRunState;
  let phase: WalkPhase = { at: 'between-nodes' };
  const effects: WalkEffect[] = [];
  const inputs: WalkInput[] = [];
  for (const record of recorded.records) {
    for (const input of record.inputs ?? []) {
      const transition = step(logic, state, phase, input);
      for (const change of transition.changes) applyChange(state, change);
      effects.push(...transition.effects);
      inputs.push(input);
      phase = transition.phase;
    }
    applyDelta(expected, record.state);
    assert.deepEqual(walkOf(state), walkOf(expected), `the state at journal record ${record.seq}`);
  }
  return { phase, effects, inputs };
}

/** Every input a run directory's journal records, in order. */
function recordWalkInputs(logsRoot: string): WalkInput[] {
  return recordedWalk(logsRoot)?.records.flatMap((record) => record.inputs ?? []) ?? [];
}

function visited(effects: readonly WalkEffect[]): string[] {
  return effects.flatMap((effect) => (effect.type === 'visit-recorded' || effect.type === 'exit-reached' ? [effect.nodeId] : []));
}

const expectedPath = ['start', 'build', 'check', 'fix', 'build', 'check', 'review', 'fix', 'build', 'check', 'review', 'ship', 'done'];

/** A run of `pipeline` recorded once (its boundaries.jsonl); `ATTRACTOR_RECORD_REPLAY=1` records it again. */
const fixture = path.join(import.meta.dirname, '../../fixtures/replayed-walk');

describe('replaying a recorded walk through the pure step', () => {
  it('takes the path of the run and reaches its state at every boundary, without running a node', async () => {
    const run = await runDot(pipeline, {
      script: {
        llm: {
          review: [{ report_outcome: { status: 'retry' } }, { report_outcome: { status: 'success', context_updates: { verdict: 'again' } } }, { report_outcome: { status: 'success', context_updates: { verdict: 'ship' } } }],
        },
      },
    });
    assert.equal(run.result.status, 'success', run.result.failureReason);
    if (process.env.ATTRACTOR_RECORD_REPLAY === '1') fs.copyFileSync(path.join(run.result.logsRoot, 'boundaries.jsonl'), path.join(fixture, 'boundaries.jsonl'));

    const replayed = replay(preparePipeline(pipeline).graph as Graph, run.result.logsRoot);

    assert.deepEqual(visited(replayed.effects), run.trace.map((record) => record.node_id));
    assert.deepEqual(visited(replayed.effects), expectedPath);
    assert.ok(replayed.phase.at === 'done' && replayed.phase.result.kind === 'finished' && replayed.phase.result.status === 'success');
    assert.ok(replayed.inputs.some((input) => input.type === 'backed-off'), 'the run retried');
    assert.ok(replayed.inputs.some((input) => input.type === 'must-write-checked' && !input.check.ok), 'a must_write check routed a retry');
    assert.ok(replayed.effects.some((effect) => effect.type === 'iteration-started'), 'the run restarted its loop');
    assert.ok(replayed.effects.some((effect) => effect.type === 'jumped'), 'a failure jumped to its retry_target');
  });

  it('keeps a large context value out of the journal: its inputs hold the artifact reference the checkpoint holds', async () => {
    const notes = `${'release notes '.repeat(25_000)}end`;
    const large = `digraph large {
  start [shape=Mdiamond]
  done [shape=Msquare]
  write [prompt="write the notes"]
  ship [shape=parallelogram, tool_command="echo shipped"]
  start -> write
  write -> ship [condition="context.verdict=ship"]
  write -> done [condition="context.verdict!=ship"]
  ship -> done
}`;
    const run = await runDot(large, { script: { llm: { write: [{ report_outcome: { status: 'success', context_updates: { notes, verdict: 'ship' } } }] } } });
    assert.equal(run.result.status, 'success', run.result.failureReason);
    const journal = fs.readFileSync(path.join(run.result.logsRoot, 'boundaries.jsonl'), 'utf8');
    assert.ok(!journal.includes('release notes release notes'), 'the value is not in the journal');
    assert.ok(journal.length < notes.length, `the journal holds ${journal.length} characters for a ${notes.length}-character value`);
    const reference = run.result.state.context.notes as { $artifact?: string; path?: string };
    assert.ok(reference.$artifact && reference.path, 'the checkpoint holds an artifact reference');
    assert.equal(JSON.parse(fs.readFileSync(path.join(run.result.logsRoot, reference.path), 'utf8')), notes, 'the artifact holds the value whole');
    const recorded = recordWalkInputs(run.result.logsRoot).flatMap((input) => (input.type === 'attempted' && input.result.kind === 'outcome' && input.result.outcome.contextUpdates?.notes !== undefined ? [input.result.outcome.contextUpdates.notes] : []));
    assert.deepEqual(recorded, [reference], 'the journal records the reference the checkpoint holds');

    const replayed = replay(preparePipeline(large).graph as Graph, run.result.logsRoot);
    assert.deepEqual(visited(replayed.effects), ['start', 'write', 'ship', 'done']);
  });

  it('replays a journal recorded earlier: no shell, no handler, the same path and states', () => {
    const recorded = recordedWalk(fixture);
    assert.equal(recorded?.base.graphHash, hashSource(pipeline), 'the fixture was recorded from this pipeline');
    const replayed = replay(preparePipeline(pipeline).graph as Graph, fixture);
    assert.deepEqual(visited(replayed.effects), expectedPath);
    assert.ok(replayed.phase.at === 'done' && replayed.phase.result.kind === 'finished' && replayed.phase.result.status === 'success');
  });
});
