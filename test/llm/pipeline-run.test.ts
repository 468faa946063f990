import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FakeHttpServer } from './fakes/fake-http-server';
import { messageStream } from './fakes/anthropic-wire';
import { chatStream } from './fakes/openai-wire';
import { runCli } from './cli-process';

/** Whole pipelines through `attractor run`: the real runtime, the real SDKs, a fake provider on 127.0.0.1. */
describe('attractor run with a real-SDK backend', () => {
  let server: FakeHttpServer;
  let baseUrl: string;
  let dir: string;
  let work: string;
  let logs: string;

  beforeEach(async () => {
    server = new FakeHttpServer();
    baseUrl = await server.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-run-'));
    work = path.join(dir, 'work');
    logs = path.join(dir, 'logs');
    fs.mkdirSync(work);
  });
  afterEach(async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const run = (dot: string, env: Record<string, string>) => {
    const file = path.join(dir, 'pipeline.dot');
    fs.writeFileSync(file, dot);
    return runCli(['run', file, '--cwd', work, '--logs-root', logs, '--json'], env);
  };
  const anthropicEnv = () => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: baseUrl });
  const openAiEnv = () => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${baseUrl}/v1` });
  const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; failure_reason: string | null; logs_root: string };

  it('converges: the model writes a file through write_file, a tool gate checks it, the loop re-enters until it passes', async () => {
    server.script(
      messageStream({ text: 'First attempt.', toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'broken' } }] }),
      messageStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success', notes: 'first attempt' } }] }),
      messageStream({ toolCalls: [{ name: 'read_file', arguments: { path: 'out.txt' } }] }),
      messageStream({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'fixed' } }, { name: 'report_outcome', arguments: { status: 'success' } }] }),
    );
    const result = await run(
      `digraph convergence_loop {
        graph [goal="make out.txt say fixed", llm_model="claude-haiku-4-5"]
        start [shape=Mdiamond]
        implement [prompt="Goal: $goal. If test_output.txt exists, read it."]
        test_gate [shape=parallelogram, goal_gate=true,
                   tool_command="grep -q fixed out.txt > test_output.txt 2>&1 && echo gate_pass || echo gate_fail"]
        done [shape=Msquare]
        start -> implement -> test_gate
        test_gate -> done [condition="context.tool.last_line=gate_pass"]
        test_gate -> implement [condition="context.tool.last_line=gate_fail", loop_restart="true"]
      }`,
      anthropicEnv(),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(lastJson(result.stdout).status, 'success');
    assert.equal(fs.readFileSync(path.join(work, 'out.txt'), 'utf8'), 'fixed');
    assert.equal(server.requests.length, 4);
    assert.match(JSON.stringify(server.requests[0]!.body), /make out\.txt say fixed/);
    // The second visit's read_file result went back to the model as a tool_result.
    assert.match(JSON.stringify(server.requests[3]!.body), /"tool_result".*"content":"broken"/);

    // "Which tools did the worker call?" is answerable from the run directory alone.
    const status = JSON.parse(fs.readFileSync(path.join(logs, 'implement', 'status.json'), 'utf8')) as { session_id: string; is_explicit: boolean };
    assert.equal(status.is_explicit, true);
    const events = fs
      .readFileSync(path.join(logs, 'implement', 'sessions', status.session_id, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; data: Record<string, unknown> });
    assert.deepEqual(events.filter((e) => e.event === 'tool:pre').map((e) => e.data.tool), ['read_file', 'write_file', 'report_outcome']);
    assert.equal(events.filter((e) => e.event === 'session:start').length, 1);
    assert.equal(events.at(-1)!.event, 'session:end');
    assert.equal(fs.readdirSync(path.join(logs, 'implement', 'sessions')).length, 2, 'one session per visit');
  });

  const judgePipeline = `digraph judge {
    graph [llm_model="gpt-4o"]
    start [shape=Mdiamond]
    done [shape=Msquare]
    judge [goal_gate=true, max_retries=0, prompt="Judge convergence."]
    start -> judge -> done
  }`;

  it('fails closed: a goal gate that answers in prose does not pass', async () => {
    server.script(chatStream({ text: 'NOT CONVERGED - 2 of 7 criteria pass. The harness was never created.' }));
    const result = await run(judgePipeline, openAiEnv());
    assert.equal(result.code, 1, result.stderr);
    assert.equal(lastJson(result.stdout).status, 'fail');
    assert.equal(fs.readFileSync(path.join(logs, 'judge', 'response.md'), 'utf8'), 'NOT CONVERGED - 2 of 7 criteria pass. The harness was never created.');
    assert.equal(server.requests.length, 1);
  });

  it('passes the same gate on an explicit report_outcome verdict', async () => {
    server.script(chatStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success', notes: 'all 7 criteria pass' } }] }));
    const result = await run(judgePipeline, openAiEnv());
    assert.equal(result.code, 0, result.stderr);
    assert.equal(lastJson(result.stdout).status, 'success');
  });

  it('refuses to launch (exit 2) when a node needs a provider without credentials, naming node, provider and variable', async () => {
    const result = await run(
      `digraph two {
        start [shape=Mdiamond]
        done [shape=Msquare]
        plan [llm_model="gpt-4o", prompt="plan"]
        review [llm_model="claude-haiku-4-5", prompt="review"]
        start -> plan -> review -> done
      }`,
      openAiEnv(),
    );
    assert.equal(result.code, 2);
    assert.match(result.stderr, /node review \(anthropic\): node 'review' needs provider 'anthropic' but ANTHROPIC_API_KEY is not set/);
    assert.equal(server.requests.length, 0, 'nothing ran');
  });

  it('a node without a model runs on the default model from --default-model, or from ATTRACTOR_DEFAULT_MODEL', async () => {
    const modelFree = `digraph model_free {
      start [shape=Mdiamond]
      done [shape=Msquare]
      work [prompt="Do the work."]
      start -> work -> done
    }`;
    const refused = await run(modelFree, openAiEnv());
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /node 'work' has no model: .* or give the run a default model/);

    const file = path.join(dir, 'pipeline.dot');
    server.script(chatStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }));
    const flagged = await runCli(['run', file, '--cwd', work, '--logs-root', path.join(dir, 'flag-run'), '--json', '--default-model', 'gpt-4o-mini'], { ...openAiEnv(), ATTRACTOR_DEFAULT_MODEL: 'claude-haiku-4-5' });
    assert.equal(flagged.code, 0, flagged.stderr);
    assert.equal((server.requests.at(-1)!.body as { model: string }).model, 'gpt-4o-mini', 'the flag wins over the environment');

    server.script(messageStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }));
    const fromEnv = await runCli(['run', file, '--cwd', work, '--logs-root', path.join(dir, 'env-run'), '--json'], { ...anthropicEnv(), ATTRACTOR_DEFAULT_MODEL: 'my-proxy-model', ATTRACTOR_DEFAULT_PROVIDER: 'anthropic' });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.equal((server.requests.at(-1)!.body as { model: string }).model, 'my-proxy-model');

    const badProvider = await runCli(['run', file, '--default-model', 'x', '--default-provider', 'mistral'], openAiEnv());
    assert.equal(badProvider.code, 2);
    assert.match(badProvider.stderr, /--default-provider expects openai or anthropic or gemini, got "mistral"/);
  });

  it('a 401 fails the node at once with the provider\'s message, even with max_retries', async () => {
    server.always(() => ({ kind: 'json', status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } }));
    const result = await run(
      `digraph one {
        graph [llm_model="gpt-4o"]
        start [shape=Mdiamond]
        done [shape=Msquare]
        work [max_retries=2, prompt="work"]
        start -> work -> done
      }`,
      openAiEnv(),
    );
    assert.equal(result.code, 1);
    assert.match(lastJson(result.stdout).failure_reason ?? '', /openai 401: Incorrect API key provided/);
    assert.equal(server.requests.length, 1, 'a 401 is not retried, by the client or by the node ladder');
  });
});
