// Who may act on `attractor serve`, and what a served run may load: attacks through its real HTTP
// interface (a server process, requests as a web page or a client would send them).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';
import { call, gated, rawCall, readEvents } from './serve-harness';
import { started, submit, workspaceWith } from './served-in-tests';

/** A pipeline that runs one node, `id` with `attributes`, between its start and exit. */
function around(id: string, attributes: string, graphAttributes?: string): string {
  return [`digraph ${id}_only {`, ...(graphAttributes ? [`  graph [${graphAttributes}]`] : []), '  start [shape=Mdiamond]', `  ${id} [${attributes}]`, '  done [shape=Msquare]', `  start -> ${id} -> done`, '}'].join('\n');
}

/** A child pipeline that leaves `ran.txt` in its working directory when it runs. */
const marker = around('mark', 'shape=parallelogram, tool_command="echo ran > ran.txt"');
const folder = (dotFile: string) => around('sub', `shape=folder, dot_file="${dotFile}"`);
const manager = (dotFile: string) => around('boss', 'shape=house, "manager.poll_interval"="50ms"', `"stack.child_dotfile"="${dotFile}"`);
const schemaPipeline = (schema: string) => around('ask', `prompt="Answer.", response_schema="${schema}"`);

/** A root holding `files`, and a directory outside it with the marker child and a schema; `escape` in the root links out. */
function rootAndOutside(files: Readonly<Record<string, string>> = {}): { root: string; outside: string } {
  const outside = workspaceWith('attractor-outside-', { 'child.dot': marker, 'schema.json': '{"type": "object"}' });
  const root = workspaceWith('attractor-root-', { 'child.dot': marker, 'gated.dot': gated, ...files });
  fs.symlinkSync(outside, path.join(root, 'escape'));
  return { root, outside };
}

async function finalStatus(url: string, id: string): Promise<Record<string, unknown>> {
  await readEvents(`${url}/pipelines/${id}/events`);
  return (await call(`${url}/pipelines/${id}`)).body;
}

describe('attractor serve: who may act on a server without a token', () => {
  it('answers only its own origin: a page on another loopback port can neither cancel, pause nor renew a lease', async () => {
    const dir = workspaceWith('attractor-origin-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const id = await submit(url, { path: 'gated.dot' });
    const port = new URL(url).port;
    const own = `http://127.0.0.1:${port}`;
    const foreign: Record<string, string>[] = [
      { origin: 'http://localhost:3000' },
      { origin: `http://127.0.0.1:${Number(port) + 1}` },
      { origin: `http://localhost:${port}` }, // another origin than the Host named
      { origin: 'null' }, // a sandboxed frame, a file:// page
      { 'sec-fetch-site': 'same-site' }, // a page's no-cors request carries no Origin, but says where it comes from
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const action of ['cancel', 'pause', 'lease']) {
      for (const headers of foreign) {
        const reply = await rawCall({ host: '127.0.0.1', port, method: 'POST', path: `/pipelines/${id}/${action}`, headers });
        assert.equal(reply.status, 403, `${action} from ${JSON.stringify(headers)}: ${JSON.stringify(reply.body)}`);
      }
    }
    assert.equal((await rawCall({ host: '127.0.0.1', port, path: '/pipelines', headers: { origin: 'http://localhost:5173' } })).status, 403, 'reading is refused too');
    const status = (await call(`${url}/pipelines/${id}`)).body;
    assert.equal(status.status, 'running');
    assert.equal(status.held, null, 'no pause took');
    assert.equal((status.attachLease as { expiresAt: unknown }).expiresAt, null, 'no lease was renewed');

    // Its own origin (a page the server served), a client without Origin (curl, VS Code) and Host by name all work.
    assert.equal((await rawCall({ host: '127.0.0.1', port, method: 'POST', path: `/pipelines/${id}/lease`, headers: { origin: own, 'sec-fetch-site': 'same-origin' } })).status, 200);
    assert.equal((await rawCall({ host: '127.0.0.1', port, path: '/pipelines', headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` } })).status, 200);
    assert.equal((await rawCall({ host: '127.0.0.1', port, path: '/pipelines', headers: { 'sec-fetch-site': 'none' } })).status, 200, 'typed into the address bar');
    assert.equal((await rawCall({ host: '127.0.0.1', port, method: 'POST', path: `/pipelines/${id}/cancel` })).status, 202);
  });

  it('with a token, the token decides: any origin that carries it is answered, none without it', async () => {
    const dir = workspaceWith('attractor-origin-token-', { 'gated.dot': gated });
    const tokenFile = path.join(dir, 'token');
    const { url } = await started(dir, '--token-file', tokenFile);
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    const port = new URL(url).port;
    const page = { origin: 'http://localhost:3000' };
    assert.equal((await rawCall({ host: '127.0.0.1', port, path: '/pipelines', headers: page })).status, 401);
    assert.equal((await rawCall({ host: '127.0.0.1', port, path: '/pipelines', headers: { ...page, authorization: `Bearer ${token}` } })).status, 200);
  });

  it('refuses to start on a token file whose token is too short, leaving the file as it was', () => {
    const dir = workspaceWith('attractor-short-token-', {});
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, 'hunter2\n', { mode: 0o600 });
    const result = spawnSync(process.execPath, [bundledCli(), 'serve', '--port', '0', '--token-file', tokenFile], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /token.*7 characters.*at least 32/);
    assert.equal(fs.readFileSync(tokenFile, 'utf8'), 'hunter2\n', 'the clients that have it are not locked out by a new one');
    assert.doesNotMatch(result.stdout, /listening/);
  });
});

describe('attractor serve: a served run loads files only under the roots', () => {
  it('a sub-pipeline or schema named outside the roots is refused at submission (422), through a link too', async () => {
    const { root, outside } = rootAndOutside({ 'linked.dot': folder('escape/child.dot'), 'managed.dot': manager('escape/child.dot'), 'typed.dot': schemaPipeline('escape/schema.json') });
    fs.writeFileSync(path.join(root, 'absolute.dot'), folder(path.join(outside, 'child.dot')));
    const { url } = await started(root);
    for (const file of ['linked.dot', 'absolute.dot', 'managed.dot', 'typed.dot']) {
      const reply = await call(`${url}/pipelines`, { body: { path: file } });
      assert.equal(reply.status, 422, `${file}: ${JSON.stringify(reply.body)}`);
      const messages = (reply.body.diagnostics as { message: string }[]).map((d) => d.message).join('\n');
      assert.match(messages, /outside the server's roots/, file);
    }
    assert.ok(!fs.existsSync(path.join(outside, 'ran.txt')));
    assert.deepEqual((await call(`${url}/pipelines`)).body.pipelines, []);
  });

  it('one named only at run time (inline DOT) fails its node and runs nothing outside: sub-pipeline and manager child alike', async () => {
    const { root, outside } = rootAndOutside();
    const { url } = await started(root);
    const outsideChild = path.join(outside, 'child.dot');
    for (const dot of [folder(outsideChild), folder(path.join(root, 'escape', 'child.dot')), manager(outsideChild)]) {
      const id = await submit(url, { dot });
      const status = await finalStatus(url, id);
      assert.equal(status.status, 'fail', JSON.stringify(status));
      assert.match(String(status.failureReason), /outside the server's roots/);
    }
    assert.ok(!fs.existsSync(path.join(outside, 'ran.txt')), 'no child ran outside');
    assert.ok(!fs.existsSync(path.join(root, 'ran.txt')), 'nor inside: the child itself was refused');

    // Inside the roots, the same pipelines run.
    const inside = await submit(url, { dot: folder(path.join(root, 'child.dot')) });
    assert.equal((await finalStatus(url, inside)).status, 'success');
    assert.equal(fs.readFileSync(path.join(root, 'ran.txt'), 'utf8'), 'ran\n');
  });
});
