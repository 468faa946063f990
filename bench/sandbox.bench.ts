// What confining a command costs (ledger SB1): a chain of tool nodes running `true` unconfined and
// under each sandbox mode, interleaved round by round, and the bare start of `bash -c true` without
// bwrap, through bwrap with only what every mode needs (the floor), and as the engine confines it.
// Issue 31 asks < 15 ms per command. Wall time only: a confined command's processes live in their
// own pid namespace, whose first process outlives bwrap and is reaped outside this process, so no
// children's CPU figure read here would include them (`perf stat`, which follows every descendant, does).
// On a shared machine `chrt -f 50 npm run bench sandbox` keeps other load out of the wall figures.
import { spawn } from 'node:child_process';
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

/** Starts `file args` and waits for it to end. */
function started(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    spawn(file, args, { stdio: 'ignore' }).on('error', reject).on('close', () => resolve());
  });
}

/** `, real-time priority (chrt)` when this process runs under SCHED_FIFO or SCHED_RR (field 41 of /proc/self/stat). */
function schedulingNote(): string {
  const policy = Number(fs.readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ')[38]);
  return policy === 1 || policy === 2 ? ', real-time priority (chrt)' : '';
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
  const confinement = { bwrap: status.bwrap, network: true, writable: [], readOnly: [], hidden: [] };
  const bare = (confined: boolean) => () => runShellCommand('true', { cwd, env: process.env, outputCapBytes: 1024, signal: new AbortController().signal, ...(confined ? { confinement } : {}) });
  // What any confinement keeping issue 31's promises starts: a read-only root, a private pid namespace with its /proc, a minimal /dev.
  const floor = () => started(status.bwrap, ['--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'bash', '-c', 'true']);
  const mountNamespaceOnly = () => started(status.bwrap, ['--ro-bind', '/', '/', 'bash', '-c', 'true']);
  const bash = await medianMs(bare(false), 41, 3);
  const bwrapNamespace = await medianMs(mountNamespaceOnly, 41, 3);
  const bwrapFloor = await medianMs(floor, 41, 3);
  const bwrap = await medianMs(bare(true), 41, 3);
  fs.rmSync(cwd, { recursive: true, force: true });
  return {
    name: 'sandbox',
    figures: {
      [`tool node running true, unconfined (ms per node, median of ${ROUNDS} ${NODES}-node chains)`]: off ?? 0,
      'tool node running true, workspace (ms per node)': workspace ?? 0,
      'tool node running true, workspace-network (ms per node)': network ?? 0,
      'overhead per tool node, workspace / workspace-network (ms)': `${((workspace ?? 0) - (off ?? 0)).toFixed(2)} / ${((network ?? 0) - (off ?? 0)).toFixed(2)}`,
      'bash -c true: unconfined / bwrap with a read-only root only / + pid namespace, /proc, /dev (the floor) / + private /tmp, cwd bound (workspace-network, no stage dir, caches or secrets), median of 41 (ms)': `${bash} / ${bwrapNamespace} / ${bwrapFloor} / ${bwrap}`,
      'bwrap probe, once per process (ms)': probeMs,
    },
    notes: `load average ${os.loadavg()[0]?.toFixed(1)}${schedulingNote()}`,
  };
}
