import fs from 'node:fs';
import { recordedPidAlive } from '../../processes';
import os from 'node:os';
import path from 'node:path';
import { preparePipeline } from '../../../engine/prepare';
import type { CodergenBackend } from '../../../engine/runtime/backend';
import type { Clock } from '../../../engine/runtime/clock';
import type { RunController } from '../../../engine/runtime/controller';
import type { RunEvent, TraceRecord } from '../../../engine/runtime/events';
import { EventBus } from '../../../engine/runtime/events';
import type { Interviewer } from '../../../engine/runtime/interviewer';
import { readTrace } from '../../../engine/runtime/run-directory';
import type { RunResult } from '../../../engine/runtime/runner';
import { runPipeline } from '../../../engine/runtime/runner';
import type { Script } from '../../../engine/runtime/scripted';
import { ScriptedBackend, scriptedInterviewer } from '../../../engine/runtime/scripted';

export interface Harness {
  readonly result: RunResult;
  readonly cwd: string;
  readonly trace: TraceRecord[];
  readonly path: string[];
  readonly events: RunEvent[];
  read(relative: string): string | undefined;
  /** A node's status.json in the run directory (its latest visit on the main walk). */
  status(nodeId: string): Record<string, unknown>;
}

export function tempDir(prefix = 'attractor-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A clock whose sleeps return at once and are recorded, so backoff is asserted without waiting. */
export function instantClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => performance.timeOrigin + performance.now(),
    monotonic: () => performance.now(),
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  };
}

export interface RunDotOptions {
  readonly script?: Partial<Script>;
  readonly backend?: CodergenBackend;
  readonly interviewer?: Interviewer;
  readonly params?: Record<string, string>;
  readonly controller?: RunController;
  readonly clock?: Clock;
  readonly signal?: AbortSignal;
  readonly cwd?: string;
  readonly files?: Record<string, string>;
  readonly defaultMaxParallel?: number;
  /** Sees every event as it happens (tests that act on the run while it runs). */
  readonly onEvent?: (event: RunEvent) => void;
}

/** Prepares a DOT text exactly as `attractor run` does and runs it in a fresh directory. */
export async function runDot(source: string, options: RunDotOptions = {}): Promise<Harness> {
  const cwd = options.cwd ?? tempDir();
  for (const [name, content] of Object.entries(options.files ?? {})) fs.writeFileSync(path.join(cwd, name), content);
  const sourcePath = path.join(cwd, 'pipeline.dot');
  fs.writeFileSync(sourcePath, source);
  const prepared = preparePipeline(source, { sourcePath, ...(options.params ? { params: options.params } : {}) });
  const errors = prepared.diagnostics.filter((d) => d.severity === 'error');
  if (!prepared.graph || errors.length) throw new Error(`pipeline does not validate: ${errors.map((d) => d.message).join('; ')}`);
  const script: Script = { llm: options.script?.llm ?? {}, human: options.script?.human ?? {} };
  const bus = new EventBus();
  const events: RunEvent[] = [];
  bus.on((event) => {
    events.push(event);
    options.onEvent?.(event);
  });
  const result = await runPipeline({
    graph: prepared.graph,
    source,
    cwd,
    logsRoot: path.join(cwd, '.run'),
    ...(options.params ? { params: options.params } : {}),
    backend: options.backend ?? new ScriptedBackend(script),
    interviewer: options.interviewer ?? scriptedInterviewer(script),
    ...(options.controller ? { controller: options.controller } : {}),
    clock: options.clock ?? instantClock(),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.defaultMaxParallel !== undefined ? { defaultMaxParallel: options.defaultMaxParallel } : {}),
    events: bus,
  });
  const read = (relative: string) => {
    try {
      return fs.readFileSync(path.join(cwd, relative), 'utf8');
    } catch {
      return undefined;
    }
  };
  const trace = readTrace(result.logsRoot);
  const structural = new Set([...prepared.graph.nodes.values()].filter((n) => ['Mdiamond', 'Msquare'].includes(n.attributes.get('shape')?.value ?? '')).map((n) => n.id));
  return {
    result,
    cwd,
    trace,
    path: trace.filter((r) => !structural.has(r.node_id)).map((r) => r.node_id),
    events,
    read,
    status: (nodeId) => JSON.parse(read(path.join('.run', nodeId, 'status.json')) ?? '{}') as Record<string, unknown>,
  };
}

/** Node ids the main walk ran (branch and sub-pipeline records left out), without start and exit. */
export function mainPath(harness: Harness): string[] {
  return harness.trace.filter((r) => r.scope === undefined && harness.path.includes(r.node_id)).map((r) => r.node_id);
}

/** Whether the process whose `$$` a test script wrote to `file` still runs; fails the test when the script never wrote it. */
export function recordedProcessAlive(harness: Harness, file: string): boolean {
  const text = harness.read(file);
  if (!text) throw new Error(`${file} was not written: the process under test never started`);
  return recordedPidAlive(Number(text.trim()), harness.cwd);
}

/** The process groups a run directory records as running (`running/`), once there are `count`. */
async function recordedGroups(logsRoot: string, count = 1, timeoutMs = 20_000): Promise<number[]> {
  const records = path.join(logsRoot, 'running');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = fs.existsSync(records) ? fs.readdirSync(records) : [];
    if (names.length >= count) return names.map(Number);
    if (Date.now() > deadline) throw new Error(`${names.length} of ${count} process groups recorded in ${records}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The one process group a run directory records as running. */
export async function recordedGroup(logsRoot: string): Promise<number> {
  const [group] = await recordedGroups(logsRoot);
  return group ?? 0;
}
