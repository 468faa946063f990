import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig, cliAnthropic, cliChat, cliFlavours } from './cli-rig';
import { anthropicError } from './fakes/anthropic-wire';
import { runCli } from './cli-process';
import { describeRun } from '../../extension/runs-model';
import { summarizeRun } from '../../host/run-directory/run-summary';

const report = { name: 'report_outcome', arguments: { status: 'success' } };

describe('usage accounting per node and per run', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  for (const flavour of cliFlavours) {
    it(`${flavour.name}: a server that reports no usage is booked as unknown, never as $0, in the trace, the manifest and attractor trace`, async () => {
      rig.server.script(flavour.stream({ toolCalls: [report], usage: null }));
      const result = await rig.run(
        `digraph one {
          graph [llm_model="${flavour.model}"]
          start [shape=Mdiamond]
          done [shape=Msquare]
          work [prompt="work"]
          start -> work -> done
        }`,
        flavour.env(rig.baseUrl),
      );
      assert.equal(result.code, 0, result.stderr);
      const work = rig.traceRecords().find((r) => r.node_id === 'work');
      assert.deepEqual([work?.input_tokens, work?.output_tokens, work?.cost_usd, work?.llm_requests], ['unknown', 'unknown', 'unknown', 1]);
      assert.deepEqual(rig.readJson<{ usage_total: unknown }>('manifest.json').usage_total, { input_tokens: 'unknown', output_tokens: 'unknown', cost_usd: 'unknown', llm_requests: 1, attempts: 3 });
      const trace = await runCli(['trace', rig.logs], {});
      assert.match(trace.stdout, /^total: unknown in \/ unknown out tokens, cost unknown, 1 model request\(s\), 3 attempt\(s\)$/m);
    });
  }

  it('retried requests and retried attempts are summed into the node; the run total adds the nodes', async () => {
    rig.server.script(
      anthropicError(500, 'api_error', 'Internal server error'),
      cliAnthropic.stream({ text: 'Converged, I think.', usage: { input: 100, output: 20 } }),
      cliAnthropic.stream({ toolCalls: [report], usage: { input: 100, output: 20 } }),
      cliAnthropic.stream({ toolCalls: [report], usage: { input: 100, output: 20 } }),
    );
    const result = await rig.run(
      `digraph two {
        graph [llm_model="claude-haiku-4-5"]
        start [shape=Mdiamond]
        done [shape=Msquare]
        judge [goal_gate=true, max_retries=1, prompt="Judge."]
        wrap [prompt="Wrap up."]
        start -> judge -> wrap -> done
      }`,
      cliAnthropic.env(rig.baseUrl),
    );
    assert.equal(result.code, 0, result.stderr);
    const perCall = (100 * 1 + 20 * 5) / 1e6;
    const judge = rig.traceRecords().find((r) => r.node_id === 'judge');
    assert.equal(judge?.attempt, 2);
    assert.deepEqual([judge?.input_tokens, judge?.output_tokens, judge?.llm_requests], [200, 40, 3]);
    assert.ok(Math.abs((judge?.cost_usd as number) - 2 * perCall) < 1e-12);
    const total = rig.readJson<{ usage_total: Record<string, number> }>('manifest.json').usage_total;
    assert.deepEqual({ ...total, cost_usd: Math.round(total.cost_usd! * 1e6) }, { input_tokens: 300, output_tokens: 60, cost_usd: 600, llm_requests: 4, attempts: 5 });
    const trace = await runCli(['trace', rig.logs, '--json'], {});
    assert.deepEqual((JSON.parse(trace.stdout) as { usage_total: unknown }).usage_total, total, 'attractor trace and the manifest compute the same total');
    assert.match(describeRun(summarizeRun(rig.logs)), /^succeeded · .* · 360 tokens · \$0\.0006$/, 'the Runs view item');
  });

  it('an LLM fan-in\'s ranking call is booked on the fan-in node', async () => {
    rig.server.script(cliChat.stream({ text: '{"best_id": "b2"}', usage: { input: 50, output: 5 } }));
    const result = await rig.run(
      `digraph ranked {
        start [shape=Mdiamond]
        done [shape=Msquare]
        fan [shape=component]
        b1 [shape=parallelogram, tool_command="echo one"]
        b2 [shape=parallelogram, tool_command="echo two"]
        join [shape=tripleoctagon, llm_model="gpt-4o", prompt="Pick the better branch."]
        start -> fan
        fan -> b1 -> join
        fan -> b2 -> join
        join -> done
      }`,
      cliChat.env(rig.baseUrl),
    );
    assert.equal(result.code, 0, result.stderr);
    const join = rig.traceRecords().find((r) => r.node_id === 'join');
    assert.deepEqual([join?.input_tokens, join?.output_tokens, join?.llm_requests], [50, 5, 1]);
    assert.deepEqual(rig.readJson<{ usage_total: { input_tokens: number } }>('manifest.json').usage_total.input_tokens, 50);
  });
});
