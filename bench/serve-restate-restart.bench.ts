// `attractor serve --on restate://…` killed (-9) and started again with runs waiting at their gates on
// Restate's workers (issue 28.3): how long until the restarted server listens, until every run's gate
// is answerable again (its events replayed, its gate confirmed by the workflow's `gate` handler), and
// until a run's whole history has come over SSE.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCluster } from '../test/restate/restate-cluster';
import { GATED_PIPELINE } from '../test/restate/gated-pipeline';
import { call, readEvents, serve, type Served } from '../test/server/serve-harness';
import { ensureTestBundle } from '../test/test-bundle';
import type { BenchReport } from './report';

const RUNS = 8;
const ROUNDS = 5;

async function gatesWaiting(url: string, ids: readonly string[]): Promise<void> {
  for (;;) {
    const { pipelines } = (await call(`${url}/pipelines`)).body as { pipelines: Array<{ id: string; pendingQuestions: number }> };
    if (ids.every((id) => pipelines.some((run) => run.id === id && run.pendingQuestions === 1))) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0);
}

export default async function serveRestateRestartBench(): Promise<BenchReport> {
  const cli = path.join(ensureTestBundle(), 'cli.js');
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-serve-restate-restart-')));
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  fs.writeFileSync(path.join(shared, 'gated.dot'), GATED_PIPELINE);
  const cluster = await startCluster(cli, dir, 1);
  let server: Served | undefined;
  try {
    // The same start with no runs under the logs root, for comparison.
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    const bare: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      await (await serve(empty, '--on', cluster.on)).kill();
      bare.push(performance.now() - started);
    }
    server = await serve(shared, '--on', cluster.on);
    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const cwd = fs.mkdtempSync(path.join(shared, 'run-'));
      const reply = await call(`${server.url}/pipelines`, { body: { path: path.join(shared, 'gated.dot'), cwd } });
      if (reply.status !== 201) throw new Error(`POST /pipelines answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      ids.push(reply.body.id as string);
    }
    await gatesWaiting(server.url, ids);
    const listening: number[] = [];
    const answerable: number[] = [];
    const history: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await server.kill();
      const started = performance.now();
      server = await serve(shared, '--on', cluster.on);
      listening.push(performance.now() - started);
      await gatesWaiting(server.url, ids);
      answerable.push(performance.now() - started);
      const before = performance.now();
      await readEvents(`${server.url}/pipelines/${ids[0]}/events`, { until: (event) => event.type === 'human:question' });
      history.push(performance.now() - before);
    }
    return {
      name: 'serve-on-restate restart',
      figures: {
        'serve start to listening, no runs (median ms)': median(bare),
        [`serve start to listening, ${RUNS} runs at gates on Restate (median ms)`]: median(listening),
        [`serve start to all ${RUNS} gates answerable again (median ms)`]: median(answerable),
        'one run\'s history to its gate over SSE after the restart (median ms)': median(history),
      },
      notes: `${ROUNDS} kill -9 and restarts of serve; one worker, restate-server and the server on one ${os.cpus().length}-CPU machine (load average ${os.loadavg()[0]?.toFixed(1)})`,
    };
  } finally {
    await server?.kill();
    cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
