// What confining a command costs (ledger SB1): a chain of tool nodes running `true` unconfined and
// under each sandbox mode, interleaved round by round, and the bare command start with and without
// bwrap. Issue 31 asks < 15 ms per command.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { namedSandbox, type SandboxSetting } from '../engine/model/sandbox-setting';
import { preparePipeline } from '../engine/prepare';
import { bubblewrapStatus } from '../engine/runtime/bubblewrap';
import { EventBus } from '../engine/runtime/events';
import { AutoApproveInterviewer } from '../engine/runtime/interviewer';
import { runShellCommand } from '../engine/runtime/process';
import { runPipeline } from '../engine/runtime/runner';
import { ScriptedBackend } from '../engine/runtime/scripted';
import type { BenchReport } from './report';
import { medianMs } from './report';

const NODES = 20;
const ROUNDS = 5;
const modes: readonly SandboxSetting[] = ['off', 'workspace', 'workspace-network'];

function chain(): string {
  const ids = Array.from({ length: NODES }, (_, i) => `t${i}`);
  return ['digraph chain {', '  start [shape=Mdiamond]', '  done [shape=Msquare]', ...ids.map((id) => `  ${id} [shape=parallelogram, tool_command="true"]`), `  start -> ${ids.join(' -> ')} -> done`, '}'].join('\n');
}

/** Wall ms per tool node of one run of the chain under `mode`. */
async function perNode(cwd: string, mode: SandboxSetting, round: number): Promise<number> {
  const source = chain();
  const prepared = preparePipeline(source, { sourcePath: path.join(cwd, 'p.dot') });
  if (!prepared.graph) throw new Error('bench graph does not parse');
  const started = performance.now();
  const result = await runPipeline({
    graph: prepared.graph,
    source,
    cwd,
    logsRoot: path.join(cwd, 'runs', `${mode}-${round}`),
    backend: new ScriptedBackend({ llm: {}, human: {} }),
    interviewer: new AutoApproveInterviewer(),
    events: new EventBus(),
    workspaceSnapshots: false,
    sandbox: namedSandbox(mode),
  });
  if (result.status !== 'success') throw new Error(`the ${mode} chain failed: ${result.failureReason}`);
  return (performance.now() - started) / NODES;
}

/** CPU ms (user + sys) of this process's waited-for children, from /proc/self/stat (clock ticks of 10 ms). */
function childrenCpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
  // After "pid (comm) ", cutime and cstime are the 14th and 15th fields.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** CPU ms per start of `runs` sequential starts: unlike wall time, barely moved by other load on the machine. */
async function cpuPerStart(start: () => Promise<unknown>, runs: number): Promise<number> {
  const before = childrenCpuMs();
  for (let i = 0; i < runs; i++) await start();
  return Number(((childrenCpuMs() - before) / runs).toFixed(2));
}

const median = (values: readonly number[]): number => Number(([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0).toFixed(2));

export default async function sandboxBench(): Promise<BenchReport> {
  const probeStart = performance.now();
  const status = bubblewrapStatus();
  const probeMs = Number((performance.now() - probeStart).toFixed(1));
  if (!status.ok) return { name: 'sandbox', figures: {}, notes: `not measured: ${status.reason}` };
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-sandbox-'));
  const times = new Map<SandboxSetting, number[]>(modes.map((mode) => [mode, []]));
  await perNode(cwd, 'workspace', -1); // warm the module and the page cache
  for (let round = 0; round < ROUNDS; round++) for (const mode of modes) times.get(mode)?.push(await perNode(cwd, mode, round));
  const [off, workspace, network] = modes.map((mode) => median(times.get(mode) ?? []));
  const confinement = { bwrap: status.bwrap, network: false, writable: [], readOnly: [], hidden: [] };
  const bare = (confined: boolean) => () => runShellCommand('true', { cwd, env: process.env, outputCapBytes: 1024, signal: new AbortController().signal, ...(confined ? { confinement } : {}) });
  const bash = await medianMs(bare(false), 21, 3);
  const bwrap = await medianMs(bare(true), 21, 3);
  const bashCpu = await cpuPerStart(bare(false), 100);
  const bwrapCpu = await cpuPerStart(bare(true), 100);
  fs.rmSync(cwd, { recursive: true, force: true });
  return {
    name: 'sandbox',
    figures: {
      [`tool node running true, unconfined (ms per node, median of ${ROUNDS} ${NODES}-node chains)`]: off ?? 0,
      'tool node running true, workspace (ms per node)': workspace ?? 0,
      'tool node running true, workspace-network (ms per node)': network ?? 0,
      'overhead per tool node, workspace / workspace-network (ms)': `${((workspace ?? 0) - (off ?? 0)).toFixed(2)} / ${((network ?? 0) - (off ?? 0)).toFixed(2)}`,
      'bash -c true vs the same through bwrap, median of 21 (ms)': `${bash} vs ${bwrap}`,
      'bash -c true vs through bwrap, CPU ms per start (children user+sys, 100 starts)': `${bashCpu} vs ${bwrapCpu}`,
      'bwrap probe, once per process (ms)': probeMs,
    },
    notes: `load average ${os.loadavg()[0]?.toFixed(1)}`,
  };
}
