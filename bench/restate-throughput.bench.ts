// Throughput of durable runs (issue 30, item 8): runs per minute of a five-tool-node pipeline on 1, 2
// and 3 `attractor worker`s behind the balancer and restate-server, twenty runs submitted at once to
// Restate's ingress; beside it the same twenty runs submitted at once to `attractor serve`, which walks
// them in its own process. And where a step's time goes: one run alone, its wall time per node visit
// against the time its nodes took (the trace's durations) and against the same steps taken in this
// process without Restate (advanceRun, as a worker calls it), with the run's Restate journal size.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DurableRunClient } from '../host/restate/restate-client';
import { readTrace } from '../engine/runtime/run-directory';
import { KeptWorkspaceStores } from '../engine/runtime/kept-workspace-stores';
import { ScriptedBackend } from '../engine/runtime/scripted';
import { advanceRun } from '../restate/durable-step';
import { startCluster, type Cluster } from '../test/restate/restate-cluster';
import { call, readEvents, serve } from '../test/server/serve-harness';
import { ensureTestBundle } from '../test/test-bundle';
import type { BenchReport } from './report';

const PIPELINE = `digraph five {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="echo a >> steps.log"]
  b [shape=parallelogram, tool_command="echo b >> steps.log"]
  c [shape=parallelogram, tool_command="echo c >> steps.log"]
  d [shape=parallelogram, tool_command="echo d >> steps.log"]
  e [shape=parallelogram, tool_command="echo e >> steps.log"]
  exit [shape=Msquare]
  start -> a -> b -> c -> d -> e -> exit
}
`;
const RUNS = 20;
/** start, five tools, exit. */
const VISITS = 7;

interface Measured {
  readonly runsPerMinute: number;
  /** The 1-minute load average when the last run finished. */
  readonly load: number;
}

/** RUNS runs submitted at once to Restate's ingress, from the first submission to the last result. */
async function onWorkers(cluster: Cluster, shared: string, label: string): Promise<Measured> {
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const cwd = fs.mkdtempSync(path.join(shared, `${label}-${i}-`));
      const client = new DurableRunClient(cluster.ingress, `${label}-${i}`);
      await client.submit({ source: PIPELINE, cwd, logsRoot: path.join(cwd, '.attractor-runs', `${label}-${i}`), params: {} });
      return client.result();
    }),
  );
  const failed = results.filter((result) => result.status !== 'success');
  if (failed.length > 0) throw new Error(`${failed.length} run(s) on ${label} did not succeed: ${JSON.stringify(failed[0])}`);
  return { runsPerMinute: (RUNS / (performance.now() - started)) * 60_000, load: os.loadavg()[0] ?? 0 };
}

/** The same RUNS runs submitted at once to a plain `attractor serve`, from the first POST to the last run:end. */
async function inServe(shared: string): Promise<Measured> {
  const server = await serve(shared, '--max-runs', String(RUNS));
  try {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => {
        const cwd = fs.mkdtempSync(path.join(shared, `serve-${i}-`));
        const reply = await call(`${server.url}/pipelines`, { body: { dot: PIPELINE, cwd } });
        if (reply.status !== 201) throw new Error(`POST /pipelines answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        const events = await readEvents(`${server.url}/pipelines/${reply.body.id as string}/events`, { until: (event) => event.type === 'run:end' });
        if (events.at(-1)?.data.status !== 'success') throw new Error(`a served run did not succeed: ${JSON.stringify(events.at(-1))}`);
      }),
    );
    return { runsPerMinute: (RUNS / (performance.now() - started)) * 60_000, load: os.loadavg()[0] ?? 0 };
  } finally {
    await server.stop();
  }
}

/** One run alone on the workers: its wall time per visit, its tools' share of it, and its journal in Restate. */
async function oneRunAlone(cluster: Cluster, shared: string): Promise<{ readonly perVisitMs: number; readonly toolMs: number; readonly journalEntries: number }> {
  const cwd = fs.mkdtempSync(path.join(shared, 'alone-'));
  const logsRoot = path.join(cwd, '.attractor-runs', 'alone');
  const client = new DurableRunClient(cluster.ingress, 'alone');
  const started = performance.now();
  await client.submit({ source: PIPELINE, cwd, logsRoot, params: {} });
  await client.result();
  const wall = performance.now() - started;
  const trace = readTrace(logsRoot);
  const toolMs = trace.reduce((sum, record) => sum + record.duration_ms, 0) / trace.length;
  const query = await fetch(new URL('query', cluster.admin), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: "SELECT j.index FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_key = 'alone' AND i.target_handler_name = 'run'" }),
  });
  if (!query.ok) throw new Error(`Restate's query answered ${query.status}: ${await query.text()}`);
  const { rows } = (await query.json()) as { rows: unknown[] };
  return { perVisitMs: wall / VISITS, toolMs, journalEntries: rows.length };
}

/** The same run's steps taken one after another in this process, as a worker takes them (its snapshot store kept between them), without Restate: the engine's share of a step. */
async function stepsWithoutRestate(shared: string): Promise<number> {
  const cwd = fs.mkdtempSync(path.join(shared, 'steps-'));
  const engine = { backend: new ScriptedBackend({ llm: {}, human: {} }), runner: { version: 'bench', commit: 'bench', provider: 'scripted' }, workspaceStores: new KeptWorkspaceStores() };
  const started = performance.now();
  for (let step = 1; ; step++) {
    const outcome = await advanceRun('steps', { source: PIPELINE, cwd, logsRoot: path.join(cwd, '.attractor-runs', 'steps'), params: {} }, engine, `gate-${step}`, {}, new AbortController().signal);
    if (outcome.kind === 'finished') break;
    if (outcome.kind !== 'advanced') throw new Error(`a step without Restate ended ${JSON.stringify(outcome)}`);
  }
  return (performance.now() - started) / VISITS;
}

export default async function restateThroughputBench(): Promise<BenchReport> {
  const cli = path.join(ensureTestBundle(), 'cli.js');
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-throughput-')));
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  const figures: Record<string, number> = {};
  const loads: string[] = [];
  try {
    for (const workers of [1, 2, 3]) {
      const clusterDir = path.join(dir, `cluster-${workers}`);
      fs.mkdirSync(clusterDir);
      const cluster = await startCluster(cli, clusterDir, workers);
      try {
        if (workers === 1) {
          const alone = await oneRunAlone(cluster, shared);
          figures['one run alone, 1 worker: wall ms per node visit'] = Math.round(alone.perVisitMs);
          figures['one run alone: of which the node itself (trace ms)'] = Math.round(alone.toolMs);
          figures['one run alone: Restate journal entries'] = alone.journalEntries;
          figures['the same steps without Restate: ms per node visit'] = Math.round(await stepsWithoutRestate(shared));
        }
        const measured = await onWorkers(cluster, shared, `w${workers}`);
        figures[`runs/min, ${workers} worker${workers === 1 ? '' : 's'}`] = Number(measured.runsPerMinute.toFixed(1));
        loads.push(`${workers} worker(s): ${measured.load.toFixed(1)}`);
      } finally {
        cluster.stop();
      }
    }
    const here = await inServe(shared);
    figures['runs/min, serve walking in-process'] = Number(here.runsPerMinute.toFixed(1));
    loads.push(`serve: ${here.load.toFixed(1)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    name: 'restate-throughput',
    figures,
    notes: `${RUNS} runs of 5 tool nodes submitted at once; restate-server, the balancer and the workers on one ${os.cpus().length}-CPU machine, tools confined as by default; 1-minute load average at the end: ${loads.join(', ')}`,
  };
}
