import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FakeHttpServer } from './fakes/fake-http-server';
import { messageStream } from './fakes/anthropic-wire';
import { chatStream, openAiError } from './fakes/openai-wire';
import { geminiStream } from './fakes/gemini-wire';
import { runCli } from './cli-process';
import { bwrapUnusable } from '../sandbox-support';

interface Check {
  name: string;
  state: string;
  detail: string;
}

describe('attractor doctor', () => {
  it('reports node, providers (keys never printed), a 1-token probe per provider, Graphviz WASM and the run directory', async () => {
    const openai = new FakeHttpServer();
    const anthropic = new FakeHttpServer();
    const gemini = new FakeHttpServer();
    const [openaiUrl, anthropicUrl, geminiUrl] = await Promise.all([openai.start(), anthropic.start(), gemini.start()]);
    openai.script(chatStream({ text: 'O', usage: { input: 9, output: 1 } }, 'gpt-4o-mini'));
    anthropic.script(messageStream({ text: 'O', usage: { input: 11, output: 1 } }));
    gemini.script(geminiStream({ text: 'O', usage: { input: 5, output: 1 } }));
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-'));
    try {
      const result = await runCli(['doctor', '--probe', '--json', '--cwd', cwd], {
        OPENAI_API_KEY: 'sk-very-secret-openai',
        OPENAI_BASE_URL: `${openaiUrl}/v1`,
        ANTHROPIC_API_KEY: 'sk-ant-very-secret',
        ANTHROPIC_BASE_URL: anthropicUrl,
        GEMINI_API_KEY: 'gemini-very-secret',
        GEMINI_BASE_URL: geminiUrl,
        ATTRACTOR_DEFAULT_MODEL: 'house-model',
        ATTRACTOR_DEFAULT_PROVIDER: 'openai',
      });
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout + result.stderr, /very-secret/);
      const checks = (JSON.parse(result.stdout) as { checks: Check[] }).checks;
      assert.deepEqual(checks.map((c) => [c.name, c.state]), [
        ['node', 'ok'],
        ['provider openai', 'ok'],
        ['provider anthropic', 'ok'],
        ['provider gemini', 'ok'],
        ['default model', 'ok'],
        // Node 22.15+ relaunches without the keys (cli/credentials.ts); older Node warns.
        ['key isolation', 'execve' in process ? 'ok' : 'warn'],
        ['probe openai', 'ok'],
        ['probe anthropic', 'ok'],
        ['probe gemini', 'ok'],
        // Where bwrap cannot run, tools would run unconfined: a warning, not a failure.
        ['sandbox', bwrapUnusable() ? 'warn' : 'ok'],
        ['graphviz', 'ok'],
        ['run directory', 'ok'],
      ]);
      assert.equal(openai.requests[0]!.body.max_completion_tokens, 1);
      assert.equal(anthropic.requests[0]!.body.max_tokens, 1);
      assert.equal(anthropic.requests[0]!.headers.authorization, 'Bearer sk-ant-very-secret');
      assert.equal(gemini.requests[0]!.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
      assert.equal(gemini.requests[0]!.headers['x-goog-api-key'], 'gemini-very-secret');
      assert.deepEqual(gemini.requests[0]!.body.generationConfig, { maxOutputTokens: 1 });
      assert.match(checks.find((c) => c.name === 'probe gemini')!.detail, /gemini-2\.5-flash answered with one tool offered \(5 in \/ 1 out tokens\)/);
      // One tool rides along: a model without tool calls fails the probe as it would fail every node.
      for (const server of [openai, anthropic]) assert.deepEqual((server.requests[0]!.body.tools as { name?: string; function?: { name: string } }[]).map((t) => t.function?.name ?? t.name), ['probe_ok']);
      assert.deepEqual((gemini.requests[0]!.body.tools as { functionDeclarations: { name: string }[] }[]).flatMap((t) => t.functionDeclarations.map((d) => d.name)), ['probe_ok']);
      assert.deepEqual(fs.readdirSync(cwd), [], 'the run-directory check leaves nothing behind');
    } finally {
      await Promise.all([openai.stop(), anthropic.stop(), gemini.stop()]);
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('fails (exit 1) when the probe reply counts 0 tokens: a stub, not a model', async () => {
    const openai = new FakeHttpServer();
    const url = await openai.start();
    openai.script(chatStream({ text: 'OK', usage: { input: 0, output: 0 } }, 'gpt-4o-mini'));
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-'));
    try {
      const result = await runCli(['doctor', '--probe', '--cwd', cwd], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1` });
      assert.equal(result.code, 1);
      assert.match(result.stdout, /✗ probe openai: gpt-4o-mini: the reply reported 0 tokens: not an answer from a model/);
    } finally {
      await openai.stop();
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('fails (exit 1) when a probe is refused, with the provider\'s message; an unset key is only a warning', async () => {
    const openai = new FakeHttpServer();
    const url = await openai.start();
    openai.script(openAiError(401, 'Incorrect API key provided'));
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-'));
    try {
      const result = await runCli(['doctor', '--probe', '--cwd', cwd], { OPENAI_API_KEY: 'sk-bad', OPENAI_BASE_URL: `${url}/v1`, ATTRACTOR_DEFAULT_MODEL: 'claude-sonnet-4-5' });
      assert.equal(result.code, 1);
      assert.match(result.stdout, /✗ probe openai: gpt-4o-mini: openai 401: Incorrect API key provided/);
      assert.match(result.stdout, /! provider anthropic: ANTHROPIC_API_KEY is not set/);
      assert.match(result.stdout, /! provider gemini: GEMINI_API_KEY \(or GOOGLE_API_KEY\) is not set/);
      assert.match(result.stdout, /! default model: claude-sonnet-4-5 needs provider anthropic but ANTHROPIC_API_KEY is not set/);
    } finally {
      await openai.stop();
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});
