import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig, cliAnthropic, cliChat, cliFlavours, cliGemini } from './cli-rig';

const onePrompt = (model: string, attributes = '') => `digraph one {
  graph [llm_model="${model}"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  work [prompt="Write the report."${attributes}]
  start -> work -> done
}`;

/**
 * The first backoff of the client's retries (ATTRACTOR_LLM_RETRY_DELAY_MS, doubled for each further one): the
 * default 1 s, 2 s, 4 s is waited out once, by the first flavour; the others' retries take as many times 20 ms.
 */
const defaultFirstDelayMs = 1000;
const shortRetries = { ATTRACTOR_LLM_RETRY_DELAY_MS: '20' };

/** Broken or unfinished model calls never become a node's success (`attractor run`, real SDKs, wire servers). */
describe('LLM nodes fail closed', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  for (const flavour of [cliChat, cliAnthropic, cliGemini]) {
    const retryEnv = flavour === cliChat ? {} : shortRetries;
    const firstDelayMs = flavour === cliChat ? defaultFirstDelayMs : Number(shortRetries.ATTRACTOR_LLM_RETRY_DELAY_MS);
    it(`${flavour.name}: a stream cut before its terminal event is a transient error, retried after ${firstDelayMs}, ${2 * firstDelayMs}, ${4 * firstDelayMs} ms (±20 %), then a failure that says so`, async () => {
      rig.server.always(() => flavour.stream({ text: 'I will now write the report and then' , truncate: true }));
      const result = await rig.run(onePrompt(flavour.model), { ...flavour.env(rig.baseUrl), ...retryEnv });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.summary.status, 'fail');
      assert.match(result.summary.failure_reason ?? '', /stream ended without (message_stop|a finish_reason|a final finishReason) \(incomplete response\)/);
      assert.equal(rig.server.requests.length, 4, 'the first request and three client retries');
      const delays = rig.sessionEvents('work').flatMap((e) => (e.data.provider_retry === undefined ? [] : [e.data.delay_ms as number]));
      assert.equal(delays.length, 3, JSON.stringify(delays));
      delays.forEach((delay, i) => assert.ok(Math.abs(delay / (firstDelayMs * 2 ** i) - 1) <= 0.2, `retry ${i + 1} waited ${delay} ms`));
      assert.equal(fs.existsSync(path.join(rig.logs, 'work', 'response.md')), false, 'the partial text is no answer');
    });

    it(`${flavour.name}: a cut stream followed by a whole one succeeds on the retry`, async () => {
      rig.server.script(flavour.stream({ text: 'I will now wri', truncate: true }), flavour.stream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success', notes: 'done' } }] }));
      const result = await rig.run(onePrompt(flavour.model), { ...flavour.env(rig.baseUrl), ...shortRetries });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(rig.server.requests.length, 2);
    });
  }

  for (const flavour of cliFlavours) {
    it(`${flavour.name}: a plain JSON body sent back to a streaming request is read whole, tool calls included`, async () => {
      rig.server.script(
        flavour.body({ text: 'Writing it.', toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'report.txt', content: 'the report' } }] }),
        flavour.body({ toolCalls: [{ id: 'call_r', name: 'report_outcome', arguments: { status: 'success', notes: 'written' } }] }),
      );
      const result = await rig.run(onePrompt(flavour.model), flavour.env(rig.baseUrl));
      assert.equal(result.code, 0, result.stderr);
      assert.equal(fs.readFileSync(path.join(rig.work, 'report.txt'), 'utf8'), 'the report');
      assert.equal(rig.readJson<{ is_explicit: boolean }>('work', 'status.json').is_explicit, true);
    });

    it(`${flavour.name}: an agent stuck until the tool-round limit fails the node with that reason`, async () => {
      rig.server.always(() => flavour.stream({ text: 'Let me look again.', toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] }));
      const result = await rig.run(onePrompt(flavour.model), flavour.env(rig.baseUrl));
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.summary.status, 'fail');
      assert.match(result.summary.failure_reason ?? '', /the agent hit the tool-round limit \(50 rounds\) before it finished/);
      assert.equal(rig.server.requests.length, 51);
    });
  }
});
