// Engine overhead on model-free graphs: per node step (the walk, records, routing, the journal
// commit and trace writes — no handler work beyond a no-op), its growth with the length of the
// walk, the record writes alone, loop iterations, and resume latency.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHandlerRegistry } from '../engine/handlers';
import { preparePipeline } from '../engine/prepare';
import { EventBus } from '../engine/runtime/events';
import { AutoApproveInterviewer } from '../engine/runtime/interviewer';
import { resumeRun } from '../engine/runtime/launch';
import { RunDirectory, loadCheckpoint } from '../engine/runtime/run-directory';
import { runPipeline } from '../engine/runtime/runner';
import type { RunState } from '../engine/runtime/state';
import type { ScriptedEntry } from '../engine/runtime/scripted';
import { ScriptedBackend } from '../engine/runtime/scripted';
import type { BenchReport } from './report';
import { medianMs } from './report';

function chain(n: number): string {
  const lines = ['digraph chain {', '  graph [max_steps=100000]', '  start [shape=Mdiamond]', '  done [shape=Msquare]'];
  for (let i = 0; i < n; i++) lines.push(`  n${i} [shape=diamond]`);
  // One edge statement per 1,000 nodes: the parser caps an edge chain's length.
  const walk = ['start', ...Array.from({ length: n }, (_, i) => `n${i}`), 'done'];
  for (let from = 0; from < walk.length - 1; from += 1000) lines.push(`  ${walk.slice(from, from + 1001).join(' -> ')}`);
  lines.push('}');
  return lines.join('\n');
}

function loop(iterations: number): { source: string; llm: Record<string, ScriptedEntry[]> } {
  const source = `digraph loop {
  graph [max_steps=100000]
  start [shape=Mdiamond]
  done [shape=Msquare]
  work [prompt="iterate"]
  gate [shape=diamond]
  start -> work -> gate
  gate -> work [condition="context.preferred_label=again", loop_restart=true]
  gate -> done [condition="context.preferred_label=finished"]
}`;
  const entries: ScriptedEntry[] = Array.from({ length: iterations }, (_, i) => ({ report_outcome: { status: 'success', preferred_label: i === iterations - 1 ? 'finished' : 'again' } }));
  return { source, llm: { work: entries } };
}

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-'));
}

/** What the process has written so far (every write system call, whatever the file), from the kernel's own count. */
function bytesWritten(): number {
  try {
    return Number(/^wchar: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** fsyncs the engine asked for while `counted` runs (it calls fs.fsyncSync for each: journal appends, snapshots, directory entries). */
let fsyncs = 0;
async function countingFsyncs<T>(counted: () => Promise<T>): Promise<T> {
  const fsyncSync = fs.fsyncSync;
  (fs as { fsyncSync: typeof fs.fsyncSync }).fsyncSync = (fd) => {
    fsyncs++;
    fsyncSync(fd);
  };
  try {
    return await counted();
  } finally {
    (fs as { fsyncSync: typeof fs.fsyncSync }).fsyncSync = fsyncSync;
  }
}

interface RunCost {
  readonly ms: number;
  /** User + system CPU of this process (its helper threads included, child processes not). */
  readonly cpuMs: number;
  readonly fsyncs: number;
  readonly bytes: number;
  readonly root: string;
}

async function run(source: string, llm: Record<string, ScriptedEntry[]> = {}, options: { checkpointsInMemory?: boolean } = {}): Promise<RunCost> {
  const cwd = tmp();
  const prepared = preparePipeline(source, { sourcePath: path.join(cwd, 'p.dot') });
  if (!prepared.graph) throw new Error('bench graph does not parse');
  const logsRoot = options.checkpointsInMemory ? path.join('/dev/shm', path.basename(cwd)) : path.join(cwd, '.run');
  const fsyncsBefore = fsyncs;
  const bytesBefore = bytesWritten();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await runPipeline({
    graph: prepared.graph,
    source,
    cwd,
    logsRoot,
    backend: new ScriptedBackend({ llm, human: {} }),
    interviewer: new AutoApproveInterviewer(),
    events: new EventBus(),
  });
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  if (result.status !== 'success') throw new Error(`bench run failed: ${result.failureReason}`);
  return { ms, cpuMs: (used.user + used.system) / 1000, fsyncs: fsyncs - fsyncsBefore, bytes: bytesWritten() - bytesBefore, root: result.logsRoot };
}

/** Per node step of an n-node chain: wall and CPU, each the least of `rounds` runs (the machine is shared: the minimum is the engine's own cost), and its fsyncs and bytes written. */
interface StepCost {
  readonly ms: number;
  readonly cpuMs: number;
  readonly fsyncs: number;
  readonly bytes: number;
}

async function stepCost(n: number, rounds: number, options: { checkpointsInMemory?: boolean } = {}): Promise<StepCost> {
  let ms = Number.POSITIVE_INFINITY;
  let cpuMs = Number.POSITIVE_INFINITY;
  let last: RunCost | undefined;
  for (let i = 0; i < rounds; i++) {
    last = await run(chain(n), {}, options);
    ms = Math.min(ms, last.ms);
    cpuMs = Math.min(cpuMs, last.cpuMs);
    fs.rmSync(options.checkpointsInMemory ? last.root : path.dirname(last.root), { recursive: true, force: true });
  }
  const steps = n + 2;
  return { ms: ms / steps, cpuMs: cpuMs / steps, fsyncs: (last?.fsyncs ?? 0) / steps, bytes: (last?.bytes ?? 0) / steps };
}

const fixed = (value: number, digits = 3) => Number(value.toFixed(digits));

/**
 * What one node's records cost on their own: its journal commit (delta + trace line, one fsync),
 * with the compactions it amortises (snapshots of `fullState`), and its status files.
 */
async function recordWrites(root: string, fullState: RunState): Promise<number> {
  const directory = new RunDirectory(root);
  directory.create();
  directory.openJournal(false);
  let step = 0;
  const ms = await medianMs(() => {
    step++;
    const id = `n${step}`;
    directory.appendTrace({ iteration: 0, node_id: id, status: 'success', preferred_label: '', duration_ms: 0.1, ts: new Date().toISOString(), is_explicit: true, attempt: 1 });
    directory.writeStatus(0, id, { status: 'success', isExplicit: true });
    const delta = { status: 'running' as const, nextNodeId: `n${step + 1}`, lastCompletedNodeId: id, iteration: 0, step, elapsedBeforeMs: step, updatedAt: new Date().toISOString(), completed: [id], outcomes: { [id]: { status: 'success' as const, isExplicit: false } }, visits: { [id]: 1 }, context: { outcome: 'success', preferred_label: '' }, retryCounts: {}, threads: {} };
    directory.commit(delta, () => fullState);
  }, 150, 50);
  directory.closeJournal();
  return ms;
}

export default function engineBench(): Promise<BenchReport[]> {
  return countingFsyncs(measure);
}

async function measure(): Promise<BenchReport[]> {
  const figures: Record<string, number | string> = {};
  const n = 1000;
  const chainRun = await run(chain(n));
  figures['1,000-node chain: total (ms)'] = Math.round(chainRun.ms);
  const onDisk = await stepCost(n, 3);
  figures['1,000-node chain: per node step incl. fsynced journal commit (ms)'] = fixed(onDisk.ms);
  figures['1,000-node chain: CPU per node step (ms)'] = fixed(onDisk.cpuMs);
  figures['1,000-node chain: fsyncs / bytes written per node'] = `${fixed(onDisk.fsyncs, 2)} / ${Math.round(onDisk.bytes)}`;
  const state = loadCheckpoint(chainRun.root);
  figures['journal commit + trace + status write per node (ms)'] = await recordWrites(path.join(tmp(), 'writes'), state);

  // Growth with the walk: a step late in a long walk must cost what a step early in a short one does.
  // Per step over the whole run counts the run's fixed costs (start, workspace snapshots, end) too,
  // which weigh more on a short run; the marginal step (4,000 less 250 nodes, over 3,750) is the walk's own.
  const growth = async (options: { checkpointsInMemory?: boolean }, where: string): Promise<void> => {
    const short = await stepCost(250, 5, options);
    const long = await stepCost(4000, 2, options);
    figures[`per node step, 250 / 4,000-node chain${where} (ms)`] = `${fixed(short.ms)} / ${fixed(long.ms)}`;
    figures[`step growth, 4,000 vs 250 nodes${where}`] = fixed(long.ms / short.ms, 2);
    figures[`CPU per node step, 250 / 4,000-node chain${where} (ms)`] = `${fixed(short.cpuMs)} / ${fixed(long.cpuMs)}`;
    figures[`marginal CPU per node step, 250 to 4,000 nodes${where} (ms)`] = fixed((long.cpuMs * 4002 - short.cpuMs * 252) / 3750);
  };
  await growth({}, '');
  if (fs.existsSync('/dev/shm')) {
    await growth({ checkpointsInMemory: true }, ' on tmpfs');
    const shm = await stepCost(n, 3, { checkpointsInMemory: true });
    const shmWritesRoot = fs.mkdtempSync('/dev/shm/attractor-bench-writes-');
    const shmWrites = await recordWrites(shmWritesRoot, state);
    figures['1,000-node chain on tmpfs: per node step (ms)'] = fixed(shm.ms);
    figures['1,000-node chain on tmpfs: CPU per node step (ms)'] = fixed(shm.cpuMs);
    figures['journal commit + trace + status write per node on tmpfs (ms)'] = shmWrites;
    figures['per node step on tmpfs without its record writes (ms)'] = fixed(shm.ms - shmWrites);
    fs.rmSync(shmWritesRoot, { recursive: true, force: true });
  }

  const iterations = 100;
  const looped = loop(iterations);
  const loopRun = await run(looped.source, looped.llm);
  figures['100-iteration loop_restart loop: total (ms)'] = Math.round(loopRun.ms);
  figures['100-iteration loop: per iteration (ms)'] = Number((loopRun.ms / iterations).toFixed(3));

  if (createHandlerRegistry().types().includes('parallel')) {
    const branches = 50;
    const fan = [`digraph fan {`, '  start [shape=Mdiamond]', '  done [shape=Msquare]', `  fan [shape=component, max_parallel=${branches}]`, '  join [shape=tripleoctagon]', '  start -> fan', '  join -> done'];
    for (let i = 0; i < branches; i++) fan.push(`  b${i} [shape=diamond]`, `  fan -> b${i} -> join`);
    fan.push('}');
    const fanRun = await run(fan.join('\n'));
    figures['50-branch fan-out/fan-in: total (ms)'] = Math.round(fanRun.ms);
  } else {
    figures['50-branch fan-out/fan-in'] = 'not measured: no parallel handler in this build';
  }

  // Resume: a checkpoint half-way through the chain, measured to the end of the run.
  const half = { ...state, status: 'running' as const, nextNodeId: `n${n / 2}`, completedNodes: state.completedNodes.slice(0, n / 2 + 1) };
  fs.writeFileSync(path.join(chainRun.root, 'checkpoint.json'), JSON.stringify(half));
  const resumeStarted = performance.now();
  let firstNodeMs = 0;
  const events = new EventBus();
  events.on((event) => {
    if (event.type === 'node:start' && firstNodeMs === 0) firstNodeMs = performance.now() - resumeStarted;
  });
  const resumed = await resumeRun(chainRun.root, { cwd: state.cwd, backend: new ScriptedBackend({ llm: {}, human: {} }), interviewer: new AutoApproveInterviewer(), events });
  if (resumed.kind !== 'ran' || resumed.result.status !== 'success') throw new Error('bench resume failed');
  figures['resume of a 1,000-node run: to first node (ms)'] = Number(firstNodeMs.toFixed(2));

  return [
    {
      name: 'engine',
      figures,
      notes: `model-free graphs (diamond no-op nodes, scripted LLM); steps are the least of several runs, wall and CPU (this process's user + system, its threads included; the workspace snapshots' git children not); bytes are the kernel's count of this process's writes; each node boundary is one fsynced journal append (checkpoint.json is a snapshot compacted as the journal outgrows it); load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs; anchor (not installable here: the Python reference is not on the registries this machine reaches): Python reference engine 0.73 ms CPU per step on tmpfs (issue 32), 0.6–1.3 ms per step, growth ×3.5`,
    },
  ];
}
