import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { candidateNamed, rankHeuristically } from '../../../engine/runtime/fan-in-ranking';
import type { ParallelResult } from '../../../engine/runtime/parallel-results';
import { readParallelResults } from '../../../engine/runtime/parallel-results';
import { mainPath, runDot } from '../runtime/harness';

/** Two or three tool branches, each printing a JSON object that parse_json puts in its context. */
function rankedDot(branches: Record<string, string>, joinAttributes = ''): string {
  const ids = Object.keys(branches);
  return `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  fan [shape=component]
  ${ids.map((id) => `${id} [shape=parallelogram, parse_json=true, tool_command=${JSON.stringify(branches[id])}]`).join('\n  ')}
  join [shape=tripleoctagon${joinAttributes ? `, ${joinAttributes}` : ''}]
  start -> fan
  ${ids.map((id) => `fan -> ${id} -> join`).join('\n  ')}
  join -> done
}`;
}

const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;

function candidate(id: string, status: ParallelResult['status'], score?: number): ParallelResult {
  return { id, status, notes: '', failure_reason: null, preferred_label: '', context: {}, ...(score !== undefined ? { score } : {}) };
}

describe('fan-in: heuristic ranking', () => {
  it('orders by status, then by score (highest first), then by id', () => {
    const ranked = rankHeuristically([candidate('c', 'fail', 99), candidate('b', 'partial_success', 5), candidate('a', 'success', 1), candidate('d', 'success', 3), candidate('e', 'success')]);
    assert.deepEqual(ranked.map((c) => c.id), ['d', 'a', 'e', 'b', 'c']);
  });

  it('picks the branch with the best score through a real run', async () => {
    const report = await runDot(rankedDot({ b1: json({ score: 1 }), b2: json({ score: 3 }), b3: json({ score: 2 }) }));
    assert.equal(report.result.status, 'success');
    assert.equal(report.result.state.context['parallel.fan_in.best_id'], 'b2');
    assert.equal(report.result.state.context['parallel.fan_in.method'], 'heuristic');
    assert.equal(report.status('join').is_explicit, true);
    assert.match(String(report.status('join').notes), /selected best candidate: b2/);
  });

  it('fails without results, non-explicitly (a wiring failure, not a verdict)', async () => {
    const dot = `digraph t {
  start [shape=Mdiamond]
  done [shape=Msquare]
  join [shape=tripleoctagon]
  start -> join -> done
}`;
    const report = await runDot(dot);
    assert.equal(report.result.status, 'fail');
    assert.equal(report.status('join').outcome, 'fail');
    assert.equal(report.status('join').is_explicit, false);
    assert.match(report.result.failureReason ?? '', /no parallel results to evaluate/);
  });

  it('refuses a parallel.results that is not a list of branch results', () => {
    assert.equal(readParallelResults('nope').ok, false);
    assert.equal(readParallelResults([{ id: 'x', status: 'great' }]).ok, false);
    assert.equal(readParallelResults([{ id: 'x', status: 'success' }]).ok, true);
  });
});

describe('fan-in: LLM ranking', () => {
  it('asks the backend when the node has a prompt and takes the id it answers', async () => {
    const report = await runDot(rankedDot({ b1: json({ draft: 'short' }), b2: json({ draft: 'thorough' }) }, 'prompt="Pick the most thorough draft for $goal"'), {
      script: { llm: { join: [{ text: 'b2\nIt is the most thorough.' }] } },
    });
    assert.equal(report.result.status, 'success');
    assert.equal(report.result.state.context['parallel.fan_in.best_id'], 'b2');
    assert.equal(report.result.state.context['parallel.fan_in.method'], 'llm');
    const prompt = report.read('.run/join/prompt.md') ?? '';
    assert.match(prompt, /Pick the most thorough draft/);
    assert.match(prompt, /### b1\nstatus: success/);
    assert.match(prompt, /"draft":"thorough"/);
    assert.equal(report.read('.run/join/response.md'), 'b2\nIt is the most thorough.');
  });

  it('accepts {"best_id": …} and a report_outcome preferred_label', async () => {
    const viaJson = await runDot(rankedDot({ b1: json({}), b2: json({}) }, 'prompt="Rank"'), { script: { llm: { join: [{ text: '{"best_id": "b2"}' }] } } });
    assert.equal(viaJson.result.state.context['parallel.fan_in.best_id'], 'b2');
    const viaReport = await runDot(rankedDot({ b1: json({}), b2: json({}) }, 'prompt="Rank"'), { script: { llm: { join: [{ report_outcome: { status: 'success', preferred_label: 'b2' } }] } } });
    assert.equal(viaReport.result.state.context['parallel.fan_in.best_id'], 'b2');
  });

  it('falls back to the heuristic with a warning when the answer names no candidate', async () => {
    const report = await runDot(rankedDot({ b1: json({ score: 1 }), b2: json({ score: 2 }) }, 'prompt="Rank"'), { script: { llm: { join: [{ text: 'They are both fine.' }] } } });
    assert.equal(report.result.status, 'success');
    assert.equal(report.result.state.context['parallel.fan_in.best_id'], 'b2');
    assert.equal(report.result.state.context['parallel.fan_in.method'], 'heuristic');
    const warning = report.events.find((e) => e.type === 'warning');
    assert.ok(warning && warning.type === 'warning');
    assert.match(warning.message, /named no candidate; using the heuristic ranking \(b2\)/);
  });

  it('does not let the model promote a failed branch over a successful one', async () => {
    const dot = rankedDot({ bad: 'exit 1', good: json({}) }, 'prompt="Rank"');
    const report = await runDot(dot, { script: { llm: { join: [{ text: 'bad' }] } } });
    assert.equal(report.result.state.context['parallel.fan_in.best_id'], 'good');
    assert.ok(report.events.some((e) => e.type === 'warning' && /which failed/.test(e.message)));
    assert.deepEqual(mainPath(report), ['fan', 'join']);
  });

  it('reads ids out of an answer by the documented contract', () => {
    const ids = ['b1', 'b2', 'b10'];
    const named = (responseText: string) => candidateNamed({ responseText }, ids);
    assert.equal(named('b10'), 'b10');
    assert.equal(named('`b2`.'), 'b2');
    assert.equal(named('```json\n{"best_id": "b1"}\n```'), 'b1');
    assert.equal(named('I prefer candidate b2 because it is complete.'), 'b2');
    assert.equal(named('b1 and b2 are equally good'), undefined);
    assert.equal(named('none of them'), undefined);
  });
});
