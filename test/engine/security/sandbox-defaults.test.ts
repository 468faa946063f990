// The default sandboxes: `auto` confines what the model wrote (the agent's shell) more than what the
// author wrote (tool nodes, hooks), and `attractor serve` confines every command with the network.
// Real CLI and server processes, real bash and bwrap, the OpenAI SDK against a fake on 127.0.0.1.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeHttpServer } from '../../llm/fakes/fake-http-server';
import { chatStream } from '../../llm/fakes/openai-wire';
import { attractor, homeWorkspace, skipWithoutBwrap } from '../../sandbox-support';
import { call, readEvents } from '../../server/serve-harness';
import { started, submit, workspaceWith } from '../../server/served-in-tests';

/** Prints whether the command reached `url` and how many processes it sees. */
const probe = (url: string) => `{ (exec 3<>/dev/tcp/127.0.0.1/${new URL(url).port}) 2>/dev/null && echo reached || echo unreachable; echo pids=$(ls /proc | grep -c '^[0-9]'); }`;

describe('default sandboxes (CLI and server processes, bwrap)', { skip: skipWithoutBwrap() }, () => {
  let server: FakeHttpServer;
  let baseUrl = '';
  before(async () => {
    server = new FakeHttpServer();
    baseUrl = await server.start();
  });
  after(() => server.stop());

  it("auto: the agent's shell runs without network, the tool node and the hook with it; all of them see only their own processes and none the secrets in $HOME", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-sandbox-auto-'));
    const outside = `${dir}-escape.txt`;
    // A $HOME outside /tmp, as a real one is: the private /tmp does not hide it.
    const { dir: home } = homeWorkspace('/var/tmp');
    const secrets = 'cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc 2>&1; (echo planted > ~/.bashrc-probe) 2>&1';
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph t {
  graph [llm_model="gpt-4o", tool_hooks.pre="${probe(baseUrl)} > hook.txt"]
  start [shape=Mdiamond]
  check [shape=parallelogram, tool_command="{ ${probe(baseUrl)}; ${secrets}; } > tool.txt; true"]
  work [prompt="look around"]
  done [shape=Msquare]
  start -> check -> work -> done
}`,
    );
    server.script(
      chatStream({ toolCalls: [{ name: 'shell', arguments: { command: `${probe(baseUrl)}; echo escaped > ${outside}; ${secrets}; true` } }] }),
      chatStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }),
    );
    const run = await attractor(dir, ['run', 'p.dot', '--logs-root', 'run'], { ...process.env, HOME: home, OPENAI_API_KEY: 'sk-test-auto', OPENAI_BASE_URL: `${baseUrl}/v1` });
    assert.equal(run.code, 0, run.stderr);
    const shell = JSON.stringify(server.requests[1]?.body);
    assert.match(shell, /unreachable/, `the model's command had no network: ${shell}`);
    assert.ok(!fs.existsSync(outside), "the model's command wrote nothing outside the working directory");
    const tool = fs.readFileSync(path.join(dir, 'tool.txt'), 'utf8');
    assert.match(tool, /^reached$/m, 'the tool node has the network');
    const hook = fs.readFileSync(path.join(dir, 'hook.txt'), 'utf8');
    assert.match(hook, /^reached$/m, 'the hook has the network');
    for (const [who, text] of [['shell', shell], ['tool', tool]] as const) {
      for (const secret of ['PRIVATE-KEY-MATERIAL', 'AWS-SECRET', 'NETRC-SECRET']) assert.ok(!text.includes(secret), `the ${who} command read ${secret}:\n${text}`);
      assert.match(text, /Read-only file system/, `the ${who} command could not write in $HOME`);
    }
    assert.ok(!fs.existsSync(path.join(home, '.bashrc-probe')), 'nothing was planted in $HOME');
    for (const [who, text] of [['shell', shell], ['tool', tool], ['hook', hook]] as const) {
      const pids = Number(/pids=(\d+)/.exec(text)?.[1]);
      assert.ok(pids > 0 && pids < 10, `the ${who} command sees only its own processes (${pids})`);
    }
  });

  it('serve: a submitted pipeline asking for sandbox=off still runs confined, with the network', async () => {
    const dir = workspaceWith('attractor-sandbox-serve-', {
      'p.dot': `digraph t { graph [sandbox=off]; start [shape=Mdiamond]; check [shape=parallelogram, tool_command="${probe(baseUrl)} > served.txt"]; done [shape=Msquare]; start -> check -> done }`,
    });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'p.dot' });
    const events = await readEvents(`${url}/pipelines/${id}/events`);
    assert.equal(events.at(-1)?.data.status, 'success', JSON.stringify(events.at(-1)));
    const served = fs.readFileSync(path.join(dir, 'served.txt'), 'utf8');
    assert.match(served, /^reached$/m);
    const pids = Number(/pids=(\d+)/.exec(served)?.[1]);
    assert.ok(pids > 0 && pids < 10, `confined: ${served}`);
    assert.equal((await call(`${url}/pipelines/${id}`)).body.status, 'success');
  });
});
