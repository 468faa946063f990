// Issue 30.7: docs/restate.md's production set-up, followed literally: its HAProxy configuration (the
// ports changed to this machine's), its identity key commands, restate-server signing with the key and
// workers refusing what it did not sign. A node longer than a short balancer timeout keeps its stream,
// and the next node starts at once.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DurableRunClient } from '../../host/restate/restate-client';
import { readTrace } from '../../engine/runtime/run-directory';
import { ensureTestBundle } from '../test-bundle';
import type { Cluster } from './restate-cluster';
import { freePorts, startCluster } from './restate-cluster';
import type { TcpBalancer } from './tcp-balancer';

const root = path.resolve(__dirname, '..', '..');
const guide = fs.readFileSync(path.join(root, 'docs', 'restate.md'), 'utf8');
const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((file) => fs.existsSync(file));

/** `long` outlasts what a short balancer timeout would let a quiet stream live. */
const PIPELINE = `digraph long {
  start [shape=Mdiamond]
  long [shape=parallelogram, tool_command="sleep 6; echo long >> steps.log"]
  next [shape=parallelogram, tool_command="echo next >> steps.log"]
  exit [shape=Msquare]
  start -> long -> next -> exit
}
`;

let dir: string;
let cluster: Cluster | undefined;
let publicKey: string;

/** The guide's HAProxy configuration, run as written but for its ports. */
async function guideHaproxy(workerPorts: readonly number[]): Promise<TcpBalancer> {
  const config = /```haproxy\n([\s\S]*?)```/.exec(guide)?.[1];
  assert.ok(config, 'docs/restate.md shows a HAProxy configuration');
  const [port = 0] = await freePorts(1);
  let server = 0;
  const local = config.replace(/bind :\d+/, `bind 127.0.0.1:${port}`).replace(/^(\s*server \S+ )\S+:\d+/gm, (_, head: string) => `${head}127.0.0.1:${workerPorts[server++] ?? 0}`);
  assert.equal(server, workerPorts.length, 'one server line per worker');
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, local);
  const child = spawn(haproxy ?? 'haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const listening = () => new Promise<boolean>((resolve) => net.connect(port, '127.0.0.1').once('connect', function (this: net.Socket) { this.destroy(); resolve(true); }).once('error', () => resolve(false)));
  for (const deadline = Date.now() + 10_000; !(await listening()); await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${errors}`);
    if (Date.now() > deadline) throw new Error(`haproxy did not listen: ${errors}`);
  }
  return { port, close: () => child.kill('SIGKILL') };
}

/** The guide's commands, as a shell runs them: each is checked to be in the guide, word for word. */
function guideCommand(command: string): string {
  assert.ok(guide.includes(command), `docs/restate.md shows \`${command}\``);
  return execFileSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8', env: { ...process.env, PATH: `${path.join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` } });
}

before(async () => {
  if (!haproxy) return;
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-production-')));
  fs.symlinkSync(path.join(root, 'scripts'), path.join(dir, 'scripts'));
  guideCommand('openssl genpkey -algorithm ed25519 -out restate-identity.pem');
  publicKey = guideCommand('node scripts/restate-identity-key.mjs restate-identity.pem').trim();
  assert.match(publicKey, /^publickeyv1_\w+$/);
  assert.ok(guide.includes('RESTATE_WORKER__INVOKER__REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE=restate-identity.pem restate-server'));
  assert.ok(guide.includes('--identity-key publickeyv1_'));
  cluster = await startCluster(path.join(ensureTestBundle(), 'cli.js'), dir, 2, {
    restateEnv: { RESTATE_WORKER__INVOKER__REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE: path.join(dir, 'restate-identity.pem') },
    workerArgs: ['--identity-key', publicKey],
    balance: guideHaproxy,
  });
});
after(() => {
  cluster?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the guide\'s set-up runs a long node through HAProxy with signed requests, and the next node starts at once', { skip: haproxy ? false : 'HAProxy is not installed (apt-get install haproxy; .ci/run installs it)' }, async () => {
  assert.ok(cluster);
  const cwd = fs.mkdtempSync(path.join(dir, 'run-'));
  const logsRoot = path.join(cwd, '.attractor-runs', 'long-run');
  const client = new DurableRunClient(cluster.ingress, 'long-run');
  await client.submit({ source: PIPELINE, cwd, logsRoot, params: {} });
  assert.deepEqual(await client.result(), { kind: 'finished', status: 'success' });
  assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'long\nnext\n');
  const trace = readTrace(logsRoot);
  // A trace record's `ts` is when the visit ended.
  const long = trace.find((record) => record.node_id === 'long');
  const next = trace.find((record) => record.node_id === 'next');
  assert.ok(long && next);
  const ended = Date.parse(long.ts);
  const started = Date.parse(next.ts) - next.duration_ms;
  console.log(`# the next node started ${started - ended} ms after the long one ended`);
  assert.ok(started - ended < 3000, `the next node started ${started - ended} ms after the long one`);
  for (const worker of cluster.workers) {
    assert.match(worker.output(), /accepting only requests signed by 1 identity key/);
    assert.doesNotMatch(worker.output(), /unsigned|without.*(identity|signature)/i);
  }
});

test('a worker refuses a request Restate did not sign', { skip: haproxy ? false : 'HAProxy is not installed' }, async () => {
  assert.ok(cluster);
  const port = cluster.workers[0]?.port;
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const request = session.request({ ':method': 'POST', ':path': '/invoke/attractor/run', 'content-type': 'application/vnd.restate.invocation.v5' });
      request.on('response', (headers) => resolve(Number(headers[':status'])));
      request.on('error', reject);
      request.end();
    });
    assert.equal(status, 401);
  } finally {
    session.close();
  }
});
