// The Runs view's listing over 500 run directories (issue 32: a refresh read them all, 46–109 ms of
// CPU on the extension host for every checkpoint any run wrote). Measured: reading every run as the
// view used to on each refresh; the catalog's first listing (every run read, in slices that give the
// event loop back) and its longest slice; a relisting after one run's checkpoint changed (one
// directory read, the other 499 from the cache); the view's update for one changed checkpoint (that
// run's directory stat'ed and read, nothing else looked at); and a full recheck (every directory's
// files stat'ed, none read).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { preparePipeline } from '../engine/prepare';
import { EventBus } from '../engine/runtime/events';
import { AutoApproveInterviewer } from '../engine/runtime/interviewer';
import { runPipeline } from '../engine/runtime/runner';
import { ScriptedBackend } from '../engine/runtime/scripted';
import { RunCatalog, listRuns } from '../host/run-directory/run-catalog';
import { runFile } from '../engine/runtime/run-layout';
import type { BenchReport } from './report';

const RUNS = 500;

const pipeline = `digraph bench {
  start [shape=Mdiamond]
  plan [prompt="plan it"]
  build [prompt="build it"]
  done [shape=Msquare]
  start -> plan -> build -> done
}`;

/** One real run directory, copied `RUNS` times under a fresh root (each its own start time). */
async function runsRoot(): Promise<{ root: string; directories: string[] }> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-runs-'));
  const graph = preparePipeline(pipeline).graph;
  if (!graph) throw new Error('the bench pipeline does not parse');
  const logsRoot = path.join(work, 'template');
  await runPipeline({ graph, source: pipeline, cwd: work, logsRoot, backend: new ScriptedBackend({ llm: {}, human: {} }), interviewer: new AutoApproveInterviewer(), events: new EventBus(), workspaceSnapshots: false });
  const root = path.join(work, 'runs');
  const checkpoint = JSON.parse(fs.readFileSync(runFile(logsRoot, 'checkpoint'), 'utf8')) as Record<string, unknown>;
  const directories: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const directory = path.join(root, `bench-${String(i).padStart(4, '0')}`);
    fs.cpSync(logsRoot, directory, { recursive: true });
    fs.writeFileSync(runFile(directory, 'checkpoint'), JSON.stringify({ ...checkpoint, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() }));
    directories.push(directory);
  }
  return { root, directories };
}

/** CPU time of `take` (user + system, this process), and the longest stretch the event loop was kept from running. */
async function measure(take: () => Promise<unknown> | unknown): Promise<{ cpuMs: number; longestBlockMs: number }> {
  let longest = 0;
  let last = performance.now();
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const cpu = process.cpuUsage();
  await take();
  const used = process.cpuUsage(cpu);
  ticking = false;
  tick();
  return { cpuMs: (used.user + used.system) / 1000, longestBlockMs: longest };
}

/** The median of 9 measurements after 2 untimed ones, each set up by `before`. */
async function median(before: () => void, take: () => Promise<unknown> | unknown): Promise<{ cpuMs: number; longestBlockMs: number }> {
  const results: { cpuMs: number; longestBlockMs: number }[] = [];
  for (let i = 0; i < 11; i++) {
    before();
    const result = await measure(take);
    if (i >= 2) results.push(result);
  }
  const mid = (values: number[]) => Number(([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0).toFixed(2));
  return { cpuMs: mid(results.map((r) => r.cpuMs)), longestBlockMs: mid(results.map((r) => r.longestBlockMs)) };
}

export default async function bench(): Promise<BenchReport> {
  const { root, directories } = await runsRoot();
  try {
    const everyRun = await median(() => undefined, () => listRuns(root));
    let catalog = new RunCatalog();
    const cold = await median(() => (catalog = new RunCatalog()), () => catalog.list([root]));
    let reads = 0;
    const warm = new RunCatalog(() => reads++);
    await warm.list([root]);
    const one = directories[RUNS / 2] ?? '';
    reads = 0;
    const afterOne = await median(() => warm.fileChanged(runFile(one, 'checkpoint'), [root]), () => warm.list([root]));
    const readsPerRefresh = reads / 11;
    reads = 0;
    const oneFile = runFile(one, 'checkpoint');
    let touches = 0;
    const update = await median(
      () => {
        // A whole second apart each time: the stamp moves on any file system's timestamp granularity.
        const when = new Date(Date.UTC(2026, 0, 2, 0, 0, ++touches));
        fs.utimesSync(oneFile, when, when);
      },
      () => warm.reread([one]),
    );
    const readsPerUpdate = reads / 11;
    const recheck = await median(() => warm.recheckAll(), () => warm.list([root]));
    return {
      name: 'runs-view',
      figures: {
        [`every run read, as each refresh did, ${RUNS} runs: CPU (ms)`]: everyRun.cpuMs,
        [`every run read: event loop blocked (ms)`]: everyRun.longestBlockMs,
        [`catalog first listing, ${RUNS} runs: CPU (ms)`]: cold.cpuMs,
        [`catalog first listing: longest slice (ms)`]: cold.longestBlockMs,
        [`refresh after one checkpoint changed: CPU (ms)`]: afterOne.cpuMs,
        [`refresh after one checkpoint changed: longest slice (ms)`]: afterOne.longestBlockMs,
        'refresh after one checkpoint changed: directories read': readsPerRefresh,
        [`view update for one changed checkpoint (its run only), ${RUNS} runs: CPU (ms)`]: update.cpuMs,
        [`view update for one changed checkpoint: longest slice (ms)`]: update.longestBlockMs,
        'view update for one changed checkpoint: directories read': readsPerUpdate,
        [`full recheck (stat only), ${RUNS} runs: CPU (ms)`]: recheck.cpuMs,
        [`full recheck: longest slice (ms)`]: recheck.longestBlockMs,
      },
      notes: `medians of 9 after 2 warm-ups; ${RUNS} copies of one finished 4-node run; CPU is this process's user+system time; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
    };
  } finally {
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
}
