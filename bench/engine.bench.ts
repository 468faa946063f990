// Engine overhead on model-free graphs: per node step (the walk, records, routing, checkpoint and
// trace writes — no handler work beyond a no-op), checkpoint+trace write cost alone, loop
// iterations, and resume latency.
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
import type { ScriptedEntry } from '../engine/runtime/scripted';
import { ScriptedBackend } from '../engine/runtime/scripted';
import type { BenchReport } from './report';
import { medianMs } from './report';

function chain(n: number): string {
  const lines = ['digraph chain {', '  graph [max_steps=100000]', '  start [shape=Mdiamond]', '  done [shape=Msquare]'];
  for (let i = 0; i < n; i++) lines.push(`  n${i} [shape=diamond]`);
  lines.push(`  start -> ${Array.from({ length: n }, (_, i) => `n${i}`).join(' -> ')} -> done`);
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

async function run(source: string, llm: Record<string, ScriptedEntry[]> = {}, options: { checkpointsInMemory?: boolean } = {}): Promise<{ ms: number; root: string }> {
  const cwd = tmp();
  const prepared = preparePipeline(source, { sourcePath: path.join(cwd, 'p.dot') });
  if (!prepared.graph) throw new Error('bench graph does not parse');
  const logsRoot = options.checkpointsInMemory ? path.join('/dev/shm', path.basename(cwd)) : path.join(cwd, '.run');
  const started = performance.now();
  const result = await runPipeline({
    graph: prepared.graph,
    source,
    cwd,
    logsRoot,
    backend: new ScriptedBackend({ llm, human: {} }),
    interviewer: new AutoApproveInterviewer(),
    events: new EventBus(),
  });
  const ms = performance.now() - started;
  if (result.status !== 'success') throw new Error(`bench run failed: ${result.failureReason}`);
  return { ms, root: result.logsRoot };
}

export default async function engineBench(): Promise<BenchReport[]> {
  const figures: Record<string, number | string> = {};
  const n = 1000;
  const chainRun = await run(chain(n));
  figures['1,000-node chain: total (ms)'] = Math.round(chainRun.ms);
  figures['1,000-node chain: per node step incl. durable checkpoint (ms)'] = Number((chainRun.ms / (n + 2)).toFixed(3));
  const state = loadCheckpoint(chainRun.root);

  // What one node's records cost: its checkpoint (at the run's average size, half-way), trace line
  // and status files. Subtracted from a step on tmpfs, it leaves the engine's own logic.
  const midRun = await run(chain(n / 2));
  const midState = loadCheckpoint(midRun.root);
  const record = { iteration: 0, node_id: 'n1', status: 'success' as const, preferred_label: '', duration_ms: 0.1, ts: new Date().toISOString(), is_explicit: true, attempt: 1 };
  const recordWrites = (root: string): Promise<number> => {
    const directory = new RunDirectory(root);
    directory.create();
    return medianMs(() => {
      directory.writeCheckpoint(midState);
      directory.appendTrace(record);
      directory.writeStatus(0, 'n1', { status: 'success', isExplicit: true });
    }, 50, 5);
  };
  figures['checkpoint + trace write per node (ms)'] = await recordWrites(path.join(tmp(), 'writes'));
  if (fs.existsSync('/dev/shm')) {
    const shm = await run(chain(n), {}, { checkpointsInMemory: true });
    const shmStep = shm.ms / (n + 2);
    const shmWritesRoot = fs.mkdtempSync('/dev/shm/attractor-bench-writes-');
    const shmWrites = await recordWrites(shmWritesRoot);
    figures['1,000-node chain on tmpfs: per node step (ms)'] = Number(shmStep.toFixed(3));
    figures['checkpoint + trace write per node on tmpfs (ms)'] = shmWrites;
    figures['per node step on tmpfs without its record writes (ms)'] = Number((shmStep - shmWrites).toFixed(3));
    fs.rmSync(shm.root, { recursive: true, force: true });
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
  const resumed = await resumeRun(chainRun.root, { backend: new ScriptedBackend({ llm: {}, human: {} }), interviewer: new AutoApproveInterviewer(), events });
  if (resumed.kind !== 'ran' || resumed.result.status !== 'success') throw new Error('bench resume failed');
  figures['resume of a 1,000-node run: to first node (ms)'] = Number(firstNodeMs.toFixed(2));

  return [{ name: 'engine', figures, notes: 'model-free graphs (diamond no-op nodes, scripted LLM); durable = fsync of checkpoint and trace per node' }];
}
