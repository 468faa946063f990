import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig, cliAnthropic } from './cli-rig';
import { toolResultsSent } from './harness';

/** Canonical §5.5 for the agent, through `attractor run` and the Anthropic SDK against a wire fake. */
describe('the artifact store as agent tools', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  it('one node stores an artifact, a later node lists and retrieves it; the run directory holds artifacts/{id}.json', async () => {
    const report = 'line\n'.repeat(30_000);
    rig.server.script(
      cliAnthropic.stream({ toolCalls: [{ id: 's1', name: 'store_artifact', arguments: { id: 'survey', name: 'the survey', content: report } }] }),
      cliAnthropic.stream({ toolCalls: [{ id: 'r1', name: 'report_outcome', arguments: { status: 'success' } }] }),
      cliAnthropic.stream({ toolCalls: [{ id: 'l2', name: 'list_artifacts', arguments: {} }, { id: 'g2', name: 'retrieve_artifact', arguments: { id: 'survey', offset: 149_990 } }] }),
      cliAnthropic.stream({ toolCalls: [{ id: 'm2', name: 'retrieve_artifact', arguments: { id: 'missing' } }] }),
      cliAnthropic.stream({ toolCalls: [{ id: 'r2', name: 'report_outcome', arguments: { status: 'success' } }] }),
    );
    const result = await rig.run(
      `digraph artifacts {
        graph [llm_model="${cliAnthropic.model}"]
        start [shape=Mdiamond]
        done [shape=Msquare]
        survey [prompt="Survey the code and store the survey."]
        use [prompt="Use the survey."]
        start -> survey -> use -> done
      }`,
      cliAnthropic.env(rig.baseUrl),
    );
    assert.equal(result.summary.status, 'success', result.stderr);
    assert.equal(JSON.parse(fs.readFileSync(path.join(rig.logs, 'artifacts', 'survey.json'), 'utf8')), report);
    const tools = (rig.bodies('/v1/messages')[0]?.tools as { name: string }[]).map((tool) => tool.name);
    assert.ok(['store_artifact', 'retrieve_artifact', 'list_artifacts'].every((name) => tools.includes(name)), tools.join(', '));
    const stored = toolResultsSent(rig.bodies('/v1/messages')[1] ?? {}).find((r) => r.id === 's1');
    assert.match(stored?.content ?? '', /"id":"survey","name":"the survey","size_bytes":180002/);
    const [listed, retrieved] = toolResultsSent(rig.bodies('/v1/messages')[3] ?? {}).filter((r) => r.id === 'l2' || r.id === 'g2');
    assert.match(listed?.content ?? '', /"node_id":"survey"/);
    assert.equal(retrieved?.content, 'line\nline\n');
    const missing = toolResultsSent(rig.bodies('/v1/messages')[4] ?? {}).find((r) => r.id === 'm2');
    assert.match(missing?.content ?? '', /retrieve_artifact: artifact "missing" not found/);
  });
});
