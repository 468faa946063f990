// Provider keys stay out of reach of tools: neither a tool node, nor the agent's shell tool, nor
// anything they walk up to through /proc/<ancestor>/environ sees them. Through the CLI process,
// with real bash and the real OpenAI SDK against a fake server on 127.0.0.1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { node24 } from '../../node24';
import { bundledCli } from '../../test-bundle';
import { FakeHttpServer } from '../../llm/fakes/fake-http-server';
import { chatStream } from '../../llm/fakes/openai-wire';

const openAiKey = 'sk-test-openai-8f3a1c';
const anthropicKey = 'sk-test-anthropic-5d2e9b';
const otherKey = 'test-other-7c4b2a';

// Replacing the process image needs process.execve (Node 22.15 or later): on an older system Node the
// test runs the CLI under the Node 24 the repository's tools use (scripts/ensure-node24.sh).
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const relaunchingNode = major > 22 || (major === 22 && minor >= 15) ? process.execPath : node24();

/** Writes what the command can see of its own environment and of every ancestor's initial one. */
const snoop = (file: string) =>
  `env > ${file}; p=$PPID; while [ "$p" -gt 1 ]; do echo "== pid $p" >> ${file}; tr '\\\\0' '\\\\n' < /proc/$p/environ >> ${file}; p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2); done`;

function attractor(node: string, cwd: string, args: readonly string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/(_API_KEY|^OPENAI_|^ANTHROPIC_|^ATTRACTOR_)/.test(key)));
  return new Promise((resolve) => {
    execFile(node, [bundledCli(), ...args], { cwd, env: { ...clean, ...env } }, (error, _stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr });
    });
  });
}

function assertNoKey(text: string, where: string): void {
  for (const key of [openAiKey, anthropicKey, otherKey]) assert.ok(!text.includes(key), `${where} holds a key:\n${text}`);
}

describe('provider keys never reach a tool', () => {
  let server: FakeHttpServer;
  let baseUrl = '';
  before(async () => {
    bundledCli();
    server = new FakeHttpServer();
    baseUrl = await server.start();
  });
  after(() => server.stop());

  it('a tool node sees no key in its environment, nor in /proc/<pid>/environ of any ancestor', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-keys-'));
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph t {
  start [shape=Mdiamond]
  snoop [shape=parallelogram, tool_command="${snoop('seen.txt').replaceAll('"', '\\"')}"]
  done [shape=Msquare]
  start -> snoop -> done
}`,
    );
    // Unconfined, so the walk reaches the engine: the relaunch is what keeps the key out of its environ.
    const run = await attractor(relaunchingNode, dir, ['run', 'p.dot', '--logs-root', 'run', '--sandbox', 'off'], { OPENAI_API_KEY: openAiKey, ANTHROPIC_API_KEY: anthropicKey, OTHER_API_KEY: otherKey });
    assert.equal(run.code, 0, run.stderr);
    const seen = fs.readFileSync(path.join(dir, 'seen.txt'), 'utf8');
    assert.ok((seen.match(/== pid/g) ?? []).length >= 2, `the walk reached the engine and the test runner:\n${seen}`);
    assertNoKey(seen, 'a tool node');
    assert.deepEqual(fs.readdirSync(process.env.XDG_RUNTIME_DIR ?? '/dev/shm').filter((name) => name.startsWith('attractor-keys-')), [], 'the handoff left nothing behind');
  });

  it("the model's shell tool reads no key; the provider still gets it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-keys-'));
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph t {
  graph [llm_model="gpt-4o"]
  start [shape=Mdiamond]
  work [prompt="look around"]
  done [shape=Msquare]
  start -> work -> done
}`,
    );
    server.script(
      chatStream({ toolCalls: [{ name: 'shell', arguments: { command: `${snoop('model.txt')}; cat model.txt` } }] }),
      chatStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }),
    );
    const run = await attractor(relaunchingNode, dir, ['run', 'p.dot', '--logs-root', 'run', '--sandbox', 'off'], { OPENAI_API_KEY: openAiKey, OPENAI_BASE_URL: `${baseUrl}/v1`, OTHER_API_KEY: otherKey });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests[0]?.headers.authorization, `Bearer ${openAiKey}`);
    const toolResult = JSON.stringify(server.requests[1]?.body);
    assert.match(toolResult, /== pid/, 'the walk went back to the model');
    assertNoKey(toolResult, 'what the model read');
  });

  it('on any Node, a tool node runs without *_API_KEY variables', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-keys-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), 'digraph t { start [shape=Mdiamond]; t [shape=parallelogram, tool_command="env > env.txt"]; done [shape=Msquare]; start -> t -> done }');
    const run = await attractor(process.execPath, dir, ['run', 'p.dot', '--logs-root', 'run'], { OPENAI_API_KEY: openAiKey, ANTHROPIC_API_KEY: anthropicKey, OTHER_API_KEY: otherKey });
    assert.equal(run.code, 0, run.stderr);
    assertNoKey(fs.readFileSync(path.join(dir, 'env.txt'), 'utf8'), 'a tool node');
  });
});
