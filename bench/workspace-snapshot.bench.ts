// Workspace snapshots (ledger WS1, WS2) on a 1,000-file workspace: the cost per node when nothing
// changed (goal < 5 ms: no file system event since the last confirmed snapshot, so no stat pass and
// no child process; and the stat pass alone, where no watch vouches), when one file changed (git add
// + write-tree), the first snapshot of a run, a restore, and the engine's per-node step with and
// without snapshots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { preparePipeline } from '../engine/prepare';
import { EventBus } from '../engine/runtime/events';
import { AutoApproveInterviewer } from '../engine/runtime/interviewer';
import { runPipeline } from '../engine/runtime/runner';
import { ScriptedBackend } from '../engine/runtime/scripted';
import type { WorkspaceStore } from '../engine/runtime/workspace-snapshot';
import { openWorkspaceStore } from '../engine/runtime/workspace-snapshot';
import type { BenchReport } from './report';
import { medianMs } from './report';

const FILES = 1000;

function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-ws-'));
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, `src${i % 25}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(20));
  }
  return dir;
}

/** Past the racy window, so the stat pass may vouch for the last snapshot. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 80));

function open(cwd: string, runs: string): WorkspaceStore {
  const opened = openWorkspaceStore(path.join(runs, 'store'), cwd);
  if (opened.kind !== 'open') throw new Error(opened.reason);
  return opened.store;
}

/** Median and fastest of 21 timings of `take`, each after a pause past the racy window. */
async function spread(take: () => unknown): Promise<{ median: number; fastest: number }> {
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    await settle();
    const start = performance.now();
    await take();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: Number((times[10] ?? 0).toFixed(3)), fastest: Number((times[0] ?? 0).toFixed(3)) };
}

async function chainStep(cwd: string, runs: string, snapshots: boolean): Promise<number> {
  const n = 100;
  const source = ['digraph chain {', '  start [shape=Mdiamond]', '  done [shape=Msquare]', ...Array.from({ length: n }, (_, i) => `  n${i} [shape=diamond]`), `  start -> ${Array.from({ length: n }, (_, i) => `n${i}`).join(' -> ')} -> done`, '}'].join('\n');
  const prepared = preparePipeline(source, { sourcePath: path.join(cwd, 'p.dot') });
  if (!prepared.graph) throw new Error('bench graph does not parse');
  const logsRoot = path.join(runs, `chain-${snapshots ? 'on' : 'off'}`);
  const started = performance.now();
  await runPipeline({ graph: prepared.graph, source, cwd, logsRoot, backend: new ScriptedBackend({ llm: {}, human: {} }), interviewer: new AutoApproveInterviewer(), events: new EventBus(), ...(snapshots ? {} : { workspaceSnapshots: false }) });
  return (performance.now() - started) / (n + 2);
}

export default async function bench(): Promise<BenchReport> {
  const figures: Record<string, number | string> = {};
  const cwd = workspace();
  // Run directories live outside the workspace, so one measurement's store is not in the next one's workspace.
  const runs = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-runs-'));
  const store = open(cwd, runs);
  const first = performance.now();
  store.take();
  figures[`first snapshot of a ${FILES}-file workspace (ms)`] = Math.round(performance.now() - first);

  // git again past the racy window, then the stat pass after which the change watch vouches.
  await settle();
  await store.takeAtBoundary();
  await store.takeAtBoundary();
  const watched = await spread(() => store.takeAtBoundary());
  figures[`snapshot per node, nothing changed, ${FILES} files: median (ms)`] = watched.median;
  figures[`snapshot per node, nothing changed, ${FILES} files: fastest (ms)`] = watched.fastest;
  const statPass = await spread(() => store.take());
  figures[`stat pass alone (no watch vouching), nothing changed, ${FILES} files: median (ms)`] = statPass.median;
  figures[`stat pass alone (no watch vouching), nothing changed, ${FILES} files: fastest (ms)`] = statPass.fastest;

  let edit = 0;
  figures[`snapshot per node, one file changed, ${FILES} files (ms)`] = await medianMs(async () => {
    fs.writeFileSync(path.join(cwd, 'src0', 'file0.ts'), `export const edited = ${edit++};\n`);
    await store.takeAtBoundary();
  });
  store.close();
  const base = store.take();
  figures[`restore of a ${FILES}-file workspace, one file differs (ms)`] = await medianMs(() => {
    fs.writeFileSync(path.join(cwd, 'src1', 'file1.ts'), `export const edited = ${edit++};\n`);
    store.take();
    store.checkout(base);
  });

  const off = await chainStep(cwd, runs, false);
  const on = await chainStep(cwd, runs, true);
  figures[`100-node chain in the ${FILES}-file workspace: per node step, snapshots off (ms)`] = Number(off.toFixed(3));
  figures[`100-node chain in the ${FILES}-file workspace: per node step, snapshots on, the run's first snapshot included (ms)`] = Number(on.toFixed(3));
  fs.rmSync(cwd, { recursive: true, force: true });
  fs.rmSync(runs, { recursive: true, force: true });
  return {
    name: 'workspace snapshots',
    figures,
    notes: `private git store (add --all + write-tree) behind an in-process lstat fingerprint and an inotify watch per directory (fs.watch); a node that ends within 50 ms of a change takes the git path (racy window); load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs`,
  };
}
