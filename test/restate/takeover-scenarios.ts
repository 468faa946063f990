// Two workers on two "hosts" (each in a pid namespace of its own: their pids name nothing to each
// other, so only the lease can tell one that the other's engine is gone), sharing the file system,
// and a run whose tool node the test interrupts: by freezing the walking worker's engine (SIGSTOP), or
// by losing its host at once (its whole namespace killed, guard included). Shared by the frozen-worker
// test (which asserts) and the take-over bench (which records the times).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DurableRunClient } from '../../host/restate/restate-client';
import type { DurableRunResult } from '../../host/restate/run-request';
import { waitFor } from '../llm/wait-for';
import { isAlive, parentOf, processesIn } from '../processes';
import type { Cluster } from './restate-cluster';
import { startCluster } from './restate-cluster';

/**
 * Each copy of `build` holds a lock on `.alive` for as long as any of its processes lives (the
 * descriptor goes to `sleep` too): a copy that cannot take it at its start writes OVERLAP, since an
 * earlier copy still runs. A lock on the file, not a pid: the copies run in two pid namespaces.
 */
const LEDGER_PIPELINE = `digraph frozen {
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="echo prepare >> steps.log"]
  build [shape=parallelogram, tool_command="exec 9>>.alive; flock -n 9 || echo OVERLAP >> ledger; echo start >> ledger; sleep $$(cat delay); echo end >> ledger"]
  exit [shape=Msquare]
  start -> prepare -> build -> exit
}
`;
export const TAKEOVER_LEASE_MS = 6000;

export function startTwoHosts(cli: string, dir: string): Promise<Cluster> {
  return startCluster(cli, dir, 2, {
    // Unconfined tools: a confined one (bwrap --die-with-parent) dies only with its engine, not when it freezes, either.
    workerArgs: ['--sandbox', 'off'],
    workerEnv: { ATTRACTOR_RUN_LOCK_LEASE_MS: String(TAKEOVER_LEASE_MS) },
    wrapWorker: () => ['bwrap', '--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--'],
    // Restate finds the frozen worker's connection dead soon (HTTP/2 pings unanswered for 1 s; by default
    // 40 s apart with 20 s to answer) and retries the step every half second at most (the default backs
    // off to a minute): the take-over follows the lease.
    restateEnv: { RESTATE_WORKER__INVOKER__HTTP2_KEEP_ALIVE_INTERVAL: '1s', RESTATE_WORKER__INVOKER__HTTP2_KEEP_ALIVE_TIMEOUT: '1s', RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: '500ms' },
  });
}

export interface BuildRun {
  readonly walking: Cluster['workers'][number];
  readonly logsRoot: string;
  /** The tool's ledger: start, end, OVERLAP lines. */
  ledger(): string[];
  /** The lines of the run's events.jsonl. */
  events(): string[];
  steps(): string;
  result(): Promise<DurableRunResult>;
}

export interface TakeOver {
  /** From the interruption until the first copy of the tool was gone. */
  readonly toolGoneMs: number;
  /** From the interruption until the node's second copy started. */
  readonly takenOverMs: number;
}

/** A run of LEDGER_PIPELINE whose first `build` sleeps until the test says, once that tool runs. */
async function runInBuild(cluster: Cluster, dir: string, runId: string) {
  const cwd = fs.mkdtempSync(path.join(dir, 'run-'));
  fs.writeFileSync(path.join(cwd, 'delay'), '300');
  const logsRoot = path.join(cwd, '.attractor-runs', runId);
  const client = new DurableRunClient(cluster.ingress, runId);
  await client.submit({ source: LEDGER_PIPELINE, cwd, logsRoot, params: {} });
  const lines = (file: string): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  const ledger = () => lines(path.join(cwd, 'ledger'));
  await waitFor(() => ledger().length === 1 && processesIn(cwd).length > 0, 'the build tool to start', 60_000);
  const tool = processesIn(cwd);
  // The engine is the parent of the tool's shell (the group leader); its pid as this namespace sees it.
  const engine = tool.map(parentOf).find((parent) => parent !== 0 && !tool.includes(parent));
  assert.ok(engine, `the tool ${JSON.stringify(tool)} has an engine`);
  const walking = cluster.workers.find((worker) => worker.pids().includes(engine));
  assert.ok(walking, `a worker runs the engine ${engine}`);
  const run: BuildRun = { walking, logsRoot, ledger, events: () => lines(path.join(logsRoot, 'events.jsonl')), steps: () => fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), result: () => client.result() };
  /** Times the take-over once `interrupted` stopped the walking worker: the second copy sleeps no more. */
  const takeOver = async (): Promise<TakeOver> => {
    const interruptedAt = performance.now();
    fs.writeFileSync(path.join(cwd, 'delay'), '0');
    await waitFor(() => tool.every((pid) => !isAlive(pid)), "the interrupted worker's tool to die", 60_000);
    const toolGoneMs = performance.now() - interruptedAt;
    await waitFor(() => ledger().length > 1, 'the node to run again', 120_000);
    return { toolGoneMs, takenOverMs: performance.now() - interruptedAt };
  };
  return { run, engine, takeOver };
}

/** The walking worker's engine frozen mid-tool; `thaw` lets it go on (once the run is checked). */
export async function frozenWorker(cluster: Cluster, dir: string): Promise<{ run: BuildRun; times: TakeOver; thaw: () => void }> {
  const { run, engine, takeOver } = await runInBuild(cluster, dir, 'frozen-run');
  process.kill(engine, 'SIGSTOP');
  const thaw = () => process.kill(engine, 'SIGCONT');
  try {
    return { run, times: await takeOver(), thaw };
  } catch (error) {
    thaw();
    throw error;
  }
}

/** The walking worker's host lost at once: its whole pid namespace killed, engine, guard and tool. */
export async function lostHost(cluster: Cluster, dir: string): Promise<{ run: BuildRun; times: TakeOver }> {
  const { run, takeOver } = await runInBuild(cluster, dir, 'lost-run');
  run.walking.kill9();
  return { run, times: await takeOver() };
}

export function loadNow(): string {
  return os.loadavg()[0]?.toFixed(1) ?? '?';
}
