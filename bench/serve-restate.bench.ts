// `attractor serve --on restate://…` (issue 19): a four-tool-node pipeline submitted over HTTP, from
// `POST /pipelines` to `run:end` on its SSE stream, walked by one `attractor worker` through
// restate-server (one durable step per node, events read back from the run directory), beside the
// same pipeline on a plain `attractor serve` that walks it in-process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCluster } from '../test/restate/restate-cluster';
import { call, readEvents, serve } from '../test/server/serve-harness';
import { ensureTestBundle } from '../test/test-bundle';
import type { BenchReport } from './report';

const PIPELINE = `digraph four {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="echo a >> steps.log"]
  b [shape=parallelogram, tool_command="echo b >> steps.log"]
  c [shape=parallelogram, tool_command="echo c >> steps.log"]
  d [shape=parallelogram, tool_command="echo d >> steps.log"]
  exit [shape=Msquare]
  start -> a -> b -> c -> d -> exit
}
`;
const ROUNDS = 7;

/** Median and fastest of ROUNDS runs submitted one after another, POST to `run:end` on the stream. */
async function submitToEnd(url: string, shared: string): Promise<{ median: number; min: number }> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const cwd = fs.mkdtempSync(path.join(shared, 'run-'));
    const started = performance.now();
    const reply = await call(`${url}/pipelines`, { body: { dot: PIPELINE, cwd } });
    if (reply.status !== 201) throw new Error(`POST /pipelines answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    const events = await readEvents(`${url}/pipelines/${reply.body.id as string}/events`, { until: (event) => event.type === 'run:end' });
    if (events.at(-1)?.data.status !== 'success') throw new Error(`the run did not succeed: ${JSON.stringify(events.at(-1))}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: Math.round(times[Math.floor(times.length / 2)] ?? 0), min: Math.round(times[0] ?? 0) };
}

export default async function serveRestateBench(): Promise<BenchReport> {
  const cli = path.join(ensureTestBundle(), 'cli.js');
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-serve-restate-')));
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  const cluster = await startCluster(cli, dir, 1);
  try {
    const onRestate = await serve(shared, '--on', cluster.on);
    const local = await serve(shared);
    try {
      const restate = await submitToEnd(onRestate.url, shared);
      const here = await submitToEnd(local.url, shared);
      return {
        name: 'serve-on-restate',
        figures: {
          'POST to run:end, 4 tool nodes, on Restate (median ms)': restate.median,
          'POST to run:end, 4 tool nodes, on Restate (fastest ms)': restate.min,
          'same, walked in the server (median ms)': here.median,
          'same, walked in the server (fastest ms)': here.min,
        },
        notes: `${ROUNDS} runs each, one after another; one worker, restate-server and the server on one ${os.cpus().length}-CPU machine (load average ${os.loadavg()[0]?.toFixed(1)}); the server reads the run's events file every 200 ms`,
      };
    } finally {
      await Promise.all([onRestate.stop(), local.stop()]);
    }
  } finally {
    cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
