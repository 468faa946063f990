// Twenty runs of a pipeline with tool nodes and a human gate on two `attractor worker`s behind
// an L4 balancer and restate-server; one worker is kill -9ed mid-run. Shared by the distributed test (which
// asserts) and its bench (which records runs/minute and the recovery time).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DurableRunClient } from '../../host/restate/restate-client';
import { readTrace } from '../../engine/runtime/run-directory';
import { startCluster } from './restate-cluster';

const run = promisify(execFile);

/** Each tool node appends its name to the run's steps.log when it finishes. */
const DURABLE_PIPELINE = `digraph durable {
  goal="Tool steps around a human gate, on two workers"
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="sleep 0.1; echo prepare >> steps.log"]
  build [shape=parallelogram, tool_command="sleep 0.1; echo build >> steps.log"]
  review [shape=hexagon, label="Ship it?"]
  ship [shape=parallelogram, tool_command="sleep 0.1; echo ship >> steps.log"]
  exit [shape=Msquare]
  start -> prepare -> build -> review
  review -> ship [label="[Y] Yes"]
  review -> exit [label="[N] No"]
  ship -> exit
}
`;
const TOOL_PATH = ['prepare', 'build', 'ship'];

export interface DistributedFigures {
  readonly runs: number;
  readonly succeeded: number;
  readonly elapsedMs: number;
  readonly runsPerMinute: number;
  /** Runs the killed worker was walking at the kill. */
  readonly interrupted: number;
  /** From the kill -9 until every run the killed worker was walking had finished a node again (on the survivor). */
  readonly recoveryMs: number;
  /** Runs in which a node that had finished ran again (must be none). */
  readonly finishedNodeReruns: readonly string[];
  /** Nodes in flight at the kill that ran again (the engine's at-least-once for the interrupted node). */
  readonly inFlightReruns: number;
  /** Runs whose gate was not visited exactly once in the trace, or not asked and answered exactly once in the events file. */
  readonly gateProblems: readonly string[];
  readonly gatesAnswered: number;
  /** A second answer to an answered gate, as Restate's ingress refused it (undefined: it was accepted). */
  readonly secondAnswerRefusal: string | undefined;
  readonly failures: readonly string[];
}

export async function distributedRounds(cli: string, runs = 20): Promise<DistributedFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-restate-'));
  const cluster = await startCluster(cli, dir, 2);
  try {
    const shared = path.join(dir, 'shared');
    fs.mkdirSync(shared);
    const pipeline = path.join(shared, 'durable.dot');
    fs.writeFileSync(pipeline, DURABLE_PIPELINE);
    const cwds = Array.from({ length: runs }, (_, i) => path.join(shared, `run-${String(i + 1).padStart(2, '0')}`));
    for (const cwd of cwds) fs.mkdirSync(cwd);
    const started = performance.now();
    // Two with `run --on --detach`, the CLI as a user runs it; the rest straight to Restate's ingress
    // (the same request), so that twenty CLI processes do not dominate the figures on a small machine.
    const viaCli = cwds.slice(0, 2).map(async (cwd) => {
      const { stdout } = await run(process.execPath, [cli, 'run', pipeline, '--on', cluster.on, '--cwd', cwd, '--detach', '--json']);
      const { run_id: runId, logs_root: logsRoot } = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { run_id: string; logs_root: string };
      return { runId, logsRoot, cwd };
    });
    const viaIngress = cwds.slice(2).map(async (cwd, i) => {
      const runId = `durable-ingress-${i + 3}`;
      const logsRoot = path.join(cwd, '.attractor-runs', runId);
      await new DurableRunClient(cluster.ingress, runId).submit({ source: DURABLE_PIPELINE, sourcePath: pipeline, cwd, logsRoot, params: {} });
      return { runId, logsRoot, cwd };
    });
    const submitted = await Promise.all([...viaCli, ...viaIngress]);
    const clients = submitted.map((s) => new DurableRunClient(cluster.ingress, s.runId));
    const lines = (cwd: string): string[] => {
      try {
        return fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    };
    const finished = new Set<number>();
    const results = Promise.all(
      clients.map(async (client, i) => {
        try {
          return await client.result();
        } finally {
          finished.add(i);
        }
      }),
    );
    // The gates, answered over Restate's HTTP ingress as soon as they open; one of them twice.
    let gatesAnswered = 0;
    let secondAnswerRefusal: string | undefined = 'no gate was answered twice';
    let stopAnswering = false;
    const answered = new Set<number>();
    const answering = (async () => {
      while (!stopAnswering) {
        for (const [i, client] of clients.entries()) {
          if (answered.has(i)) continue;
          const gate = await client.openGate().catch(() => null);
          if (!gate) continue;
          await client.answer(gate.id, { choice: 'Y' });
          answered.add(i);
          gatesAnswered += 1;
          if (gatesAnswered === 1) secondAnswerRefusal = await client.answer(gate.id, { choice: 'N' }).then(() => undefined, (error: Error) => error.message);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    // kill -9 of worker 1 once about a third of the tool steps are done.
    const total = runs * TOOL_PATH.length;
    while (submitted.reduce((n, s) => n + lines(s.cwd).length, 0) < total / 3) await new Promise((resolve) => setTimeout(resolve, 50));
    // The runs the killed worker was walking: their checkpoint names its engine process.
    const killed = cluster.workers[0];
    const killedPids = new Set(killed?.pids());
    const before = submitted.map((s) => lines(s.cwd).length);
    const interrupted = submitted.map((_, i) => i).filter((i) => !finished.has(i) && killedPids.has(checkpointPid(submitted[i]?.logsRoot ?? '') ?? -1));
    killed?.kill9();
    const killedAt = performance.now();
    const recovered = new Map<number, number>();
    while (recovered.size < interrupted.length) {
      for (const i of interrupted) if (!recovered.has(i) && (lines(submitted[i]?.cwd ?? '').length > (before[i] ?? 0) || finished.has(i))) recovered.set(i, performance.now() - killedAt);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const outcomes = await results;
    const elapsedMs = performance.now() - started;
    stopAnswering = true;
    await answering;

    const failures: string[] = [];
    const finishedNodeReruns: string[] = [];
    const gateProblems: string[] = [];
    let inFlightReruns = 0;
    for (const [i, s] of submitted.entries()) {
      const outcome = outcomes[i];
      if (outcome?.status !== 'success') failures.push(`${s.runId}: ${outcome?.status} ${outcome?.failureReason ?? ''}`);
      const log = lines(s.cwd);
      // A node re-run after the kill shows as the same line twice in a row: only the node in flight may.
      const collapsed = log.filter((line, k) => line !== log[k - 1]);
      const repeats = log.length - collapsed.length;
      if (collapsed.join(' ') !== TOOL_PATH.join(' ') || repeats > 1) finishedNodeReruns.push(`${s.runId}: ${log.join(' ')}`);
      else inFlightReruns += repeats;
      const gateVisits = readTrace(s.logsRoot).filter((record) => record.node_id === 'review');
      if (gateVisits.length !== 1) gateProblems.push(`${s.runId}: ${JSON.stringify(gateVisits)}`);
      // What serve relays as SSE: each gate asked and answered once, however many steps were replayed after the kill.
      const gateEvents = runEvents(s.logsRoot).filter((event) => event.type === 'human:question' || event.type === 'human:answer').map((event) => event.type);
      if (gateEvents.join(' ') !== 'human:question human:answer') gateProblems.push(`${s.runId}: gate events ${gateEvents.join(', ')}`);
    }
    return {
      runs,
      succeeded: outcomes.filter((o) => o.status === 'success').length,
      elapsedMs,
      runsPerMinute: (runs / elapsedMs) * 60_000,
      interrupted: interrupted.length,
      recoveryMs: Math.max(0, ...recovered.values()),
      finishedNodeReruns,
      inFlightReruns,
      gateProblems,
      gatesAnswered,
      secondAnswerRefusal,
      failures,
    };
  } finally {
    cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The events the workers wrote to a run's events file, the file `serve --on` relays as SSE. */
function runEvents(logsRoot: string): Array<{ readonly type: string }> {
  return fs.readFileSync(path.join(logsRoot, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string });
}

/** The engine process that last checkpointed a run (absent once it finished). */
function checkpointPid(logsRoot: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(logsRoot, 'checkpoint.json'), 'utf8')) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}
