import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig, cliFlavours } from './cli-rig';

const judge = (model: string) => `digraph judge {
  graph [llm_model="${model}"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  judge [goal_gate=true, max_retries=1, prompt="Judge convergence."]
  start -> judge -> done
}`;

/** Where each API puts a forced tool choice. */
function forcedTool(body: Record<string, unknown>): string | undefined {
  const choice = body.tool_choice as { type?: string; name?: string; function?: { name?: string } } | undefined;
  const gemini = body.toolConfig as { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } } | undefined;
  const geminiForced = gemini?.functionCallingConfig?.mode === 'ANY' ? gemini.functionCallingConfig.allowedFunctionNames?.join(',') : undefined;
  return choice?.function?.name ?? choice?.name ?? geminiForced;
}

describe('a goal gate retried after a prose answer', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  for (const flavour of cliFlavours) {
    it(`${flavour.name}: the retry says why the last answer did not count and forces report_outcome`, async () => {
      rig.server.script(
        flavour.stream({ text: 'Looks converged to me.' }),
        flavour.stream({ text: 'Still looks converged.' }),
        flavour.stream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success', notes: 'all criteria pass' } }] }),
      );
      const result = await rig.run(judge(flavour.model), flavour.env(rig.baseUrl));
      assert.equal(result.code, 0, result.stderr);
      assert.equal(rig.server.requests.length, 3);
      const [first, retry, forced] = rig.server.requests.map((r) => r.body);
      assert.doesNotMatch(JSON.stringify(first), /did not count/);
      assert.match(JSON.stringify(retry), /did not count: goal gate answered in prose/);
      assert.equal(forcedTool(retry!), undefined, 'the retry may still use its tools');
      assert.equal(forcedTool(forced!), 'report_outcome');
      assert.equal(rig.readJson<{ is_explicit: boolean }>('judge', 'status.json').is_explicit, true);
    });
  }
});
