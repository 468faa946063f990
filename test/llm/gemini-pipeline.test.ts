import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig } from './cli-rig';
import { geminiError, geminiStream } from './fakes/gemini-wire';

/** Gemini pipelines through `attractor run`: the real runtime, Google's SDK, a Gemini wire server on 127.0.0.1. */
describe('attractor run on gemini', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  const pipeline = `digraph gemini_pipeline {
    graph [goal="write hello.txt", model_stylesheet="* { llm_provider: gemini; llm_model: gemini-2.5-flash; }"]
    start [shape=Mdiamond]
    write [prompt="Goal: $goal."]
    review [llm_provider=gemini, llm_model="learnlm-2.0-flash-experimental", prompt="Check hello.txt."]
    done [shape=Msquare]
    start -> write -> review -> done
  }`;

  it('writes a file through the tool loop and succeeds, waiting out a 429 (RetryInfo) and a 503 on the way', async () => {
    rig.server.script(
      geminiError(429, 'Resource has been exhausted (e.g. check quota).', { 'retry-after': '0.05' }),
      geminiStream({ text: 'Writing it.', toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } }] }),
      geminiError(503, 'The model is overloaded. Please try again later.'),
      geminiStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success', notes: 'wrote hello.txt' } }] }),
      geminiStream({ toolCalls: [{ name: 'read_file', arguments: { path: 'hello.txt' } }] }),
      geminiStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }),
    );
    const result = await rig.run(pipeline, { GEMINI_API_KEY: 'gemini-test-key', GEMINI_BASE_URL: rig.baseUrl });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.summary.status, 'success');
    assert.equal(fs.readFileSync(path.join(rig.work, 'hello.txt'), 'utf8'), 'hello\n');
    assert.deepEqual(
      rig.server.requests.map((r) => r.path),
      [
        ...Array(4).fill('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'),
        ...Array(2).fill('/v1beta/models/learnlm-2.0-flash-experimental:streamGenerateContent?alt=sse'),
      ],
      'the stylesheet names the provider for write, the node itself for review',
    );
    assert.ok(rig.server.requests.every((r) => r.headers['x-goog-api-key'] === 'gemini-test-key'));
    assert.match(JSON.stringify(rig.server.requests[5]!.body.contents), /"functionResponse":\{"id":"[^"]+","name":"read_file","response":\{"output":"hello\\n"\}\}/);

    const retries = rig.sessionEvents('write').filter((e) => e.data.provider_retry !== undefined);
    assert.deepEqual(
      retries.map((e) => [e.data.status, e.data.error]),
      [
        [429, 'gemini 429: Resource has been exhausted (e.g. check quota).'],
        [503, 'gemini 503: The model is overloaded. Please try again later.'],
      ],
    );
    assert.equal(retries[0]!.data.delay_ms, 50, 'the 429 waits for the RetryInfo delay');
    assert.equal(rig.sessionEvents('review')[0]!.data.provider, 'gemini');
  });

  it('refuses to launch (exit 2) when no Gemini key is set, naming the node, the provider and both variables', async () => {
    const result = await rig.run(pipeline, { OPENAI_API_KEY: 'sk-test', GEMINI_BASE_URL: rig.baseUrl });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /node write \(gemini\): node 'write' needs provider 'gemini' but GEMINI_API_KEY \(or GOOGLE_API_KEY\) is not set/);
    assert.match(result.stderr, /node review \(gemini\): node 'review' needs provider 'gemini'/);
    assert.equal(rig.server.requests.length, 0, 'nothing ran');
  });

  it('takes the key from GOOGLE_API_KEY too', async () => {
    rig.server.script(geminiStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }), geminiStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }));
    const result = await rig.run(pipeline, { GOOGLE_API_KEY: 'google-key', GEMINI_BASE_URL: rig.baseUrl });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(rig.server.requests[0]!.headers['x-goog-api-key'], 'google-key');
  });
});
