import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { ensureTestBundle, testDist } from '../test-bundle';

const projectRoot = path.resolve(__dirname, '..', '..');
/** The adapter under test is the bundled standalone one (test-bundle.ts), as is the CLI it is compared with. */
const adapterPath = path.join(testDist, 'debug-adapter.js');
const cliPath = path.join(testDist, 'cli.js');
export const conformanceCases = path.resolve(projectRoot, '..', 'shared', 'conformance', 'cases');
export const fixtures = path.join(projectRoot, 'test', 'fixtures', 'debug-adapter');

export { ensureTestBundle };

/** A fresh working directory holding a copy of the files of a fixture folder. */
export function workspace(from: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-dap-'));
  for (const name of fs.readdirSync(from)) fs.copyFileSync(path.join(from, name), path.join(dir, name));
  return dir;
}

/** Writes files into a fresh working directory. */
export function workspaceWith(files: Readonly<Record<string, string>>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-dap-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** Every event of the session, queued by type, so a test never misses one that came early. */
class EventQueue {
  private readonly queues = new Map<string, DebugProtocol.Event[]>();
  private readonly waiters = new Map<string, ((event: DebugProtocol.Event) => void)[]>();
  readonly all: DebugProtocol.Event[] = [];

  constructor(client: DebugClient, types: readonly string[]) {
    for (const type of types) {
      client.on(type, (event: DebugProtocol.Event) => {
        this.all.push(event);
        const waiting = this.waiters.get(type)?.shift();
        if (waiting) waiting(event);
        else this.queues.set(type, [...(this.queues.get(type) ?? []), event]);
      });
    }
  }

  next<T extends DebugProtocol.Event = DebugProtocol.Event>(type: string, timeoutMs = 15_000): Promise<T> {
    const queued = this.queues.get(type)?.shift();
    if (queued) return Promise.resolve(queued as T);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} event within ${timeoutMs} ms`)), timeoutMs);
      const waiter = (event: DebugProtocol.Event) => {
        clearTimeout(timer);
        resolve(event as T);
      };
      this.waiters.set(type, [...(this.waiters.get(type) ?? []), waiter]);
    });
  }

  /** Drops what was queued of a type (events already seen and asserted elsewhere). */
  drain(type: string): DebugProtocol.Event[] {
    const queued = this.queues.get(type) ?? [];
    this.queues.set(type, []);
    return queued;
  }

  bodies<T>(type: string): T[] {
    return this.all.filter((e) => e.event === type).map((e) => e.body as T);
  }
}

export interface Session {
  readonly client: DebugClient;
  readonly events: EventQueue;
}

const EVENT_TYPES = ['stopped', 'continued', 'terminated', 'exited', 'output', 'thread', 'breakpoint', 'graphState', 'traceHistory', 'traceEntry', 'humanGate', 'humanGateClosed', 'progressStart', 'progressEnd', 'capabilities', 'travelRefused', 'workspaceRestored'];

/** The environment without provider keys: no test may reach a real LLM. */
function keylessEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['OPENAI_API_KEY'];
  delete env['ANTHROPIC_API_KEY'];
  return env;
}

/** A session with an adapter process of its own, or (given the port of an adapter server) a connection to that server. */
async function startSession(port?: number): Promise<Session> {
  const client = new DebugClient(process.execPath, adapterPath, 'attractor', { cwd: projectRoot, env: keylessEnv() });
  client.defaultTimeout = 15_000;
  const events = new EventQueue(client, EVENT_TYPES);
  await client.start(port);
  return { client, events };
}

/** The adapter as a server (`--server=0`): one process for the sessions of a test file, as the extension host runs them. */
interface AdapterServer {
  readonly port: number;
  readonly stop: () => Promise<void>;
}

async function startAdapterServer(): Promise<AdapterServer> {
  const child = spawn(process.execPath, [adapterPath, '--server=0'], { cwd: projectRoot, env: keylessEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match?.[1]) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the adapter server exited ${code}: ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
  return {
    port,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface LaunchSetup {
  readonly breakpoints?: Readonly<Record<string, readonly DebugProtocol.SourceBreakpoint[]>>;
  readonly functionBreakpoints?: readonly DebugProtocol.FunctionBreakpoint[];
  readonly exceptionFilters?: readonly string[];
  readonly supportsProgressReporting?: boolean;
}

/** initialize → breakpoints → configurationDone → launch, as VS Code does it. */
export async function launch(session: Session, args: Record<string, unknown>, setup: LaunchSetup = {}): Promise<{ breakpoints: Record<string, DebugProtocol.Breakpoint[]> }> {
  const { client } = session;
  const initialized = client.waitForEvent('initialized');
  await client.initializeRequest({ adapterID: 'attractor', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsProgressReporting: setup.supportsProgressReporting === true });
  await initialized;
  const breakpoints: Record<string, DebugProtocol.Breakpoint[]> = {};
  for (const [file, list] of Object.entries(setup.breakpoints ?? {})) {
    const response = await client.setBreakpointsRequest({ source: { path: file }, breakpoints: [...list] });
    breakpoints[file] = response.body.breakpoints;
  }
  if (setup.functionBreakpoints) await client.setFunctionBreakpointsRequest({ breakpoints: [...setup.functionBreakpoints] });
  await client.setExceptionBreakpointsRequest({ filters: [...(setup.exceptionFilters ?? [])] });
  await Promise.all([client.configurationDoneRequest(), client.launchRequest(args as DebugProtocol.LaunchRequestArguments)]);
  return { breakpoints };
}

/** The top frame of a stopped thread. */
export async function topFrame(session: Session, threadId = 1): Promise<DebugProtocol.StackFrame> {
  const trace = await session.client.stackTraceRequest({ threadId });
  const frame = trace.body.stackFrames[0];
  if (!frame) throw new Error(`thread ${threadId} has no frames`);
  return frame;
}

/** A scope's variables of the top frame, as name → displayed value. */
export async function scopeValues(session: Session, scopeName: string, threadId = 1): Promise<{ values: Record<string, string>; reference: number }> {
  const frame = await topFrame(session, threadId);
  const scopes = await session.client.scopesRequest({ frameId: frame.id });
  const scope = scopes.body.scopes.find((s) => s.name === scopeName);
  if (!scope) throw new Error(`no scope ${scopeName}`);
  const vars = await session.client.variablesRequest({ variablesReference: scope.variablesReference });
  return { values: Object.fromEntries(vars.body.variables.map((v) => [v.name, v.value])), reference: scope.variablesReference };
}

/** Node ids and statuses of a run directory's trace.jsonl. */
export function traceOf(logsRoot: string): { node_id: string; status: string; iteration: number; forced_edge?: { from: string; to: string } }[] {
  const file = path.join(logsRoot, 'trace.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { node_id: string; status: string; iteration: number; forced_edge?: { from: string; to: string } });
}

/** The CLI run of the same pipeline, for comparison. */
export function cliRun(args: readonly string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliPath, ...args], { cwd, encoding: 'utf8', env: keylessEnv() });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** 1-based line of the first line containing `text` in a file. */
export function lineOf(file: string, text: string): number {
  const index = fs.readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${text} not found in ${file}`);
  return index + 1;
}

/** The adapter's process (DebugClient keeps it private): to kill it, or to stop it for a while as a sleeping machine. */
export function adapterProcess(s: Session): ChildProcess {
  const adapter = (s.client as unknown as { _adapterProcess: ChildProcess | null })._adapterProcess;
  if (!adapter) throw new Error('the session is a connection to the adapter server: start it with { ownProcess: true }');
  return adapter;
}

/**
 * The sessions one test file starts, all stopped by its `after(stopAll)`. They share one adapter
 * server (started with the first session, stopped by stopAll) unless a test needs the adapter's
 * process to itself (`start({ ownProcess: true })`: to kill it, freeze it or measure it).
 */
export function sessionPool(): {
  start: (options?: { readonly ownProcess?: boolean }) => Promise<Session>;
  stopAll: () => Promise<void>;
  disconnect: (s: Session, args: DebugProtocol.DisconnectArguments) => Promise<void>;
  kill: (s: Session) => Promise<void>;
} {
  const sessions: Session[] = [];
  let server: Promise<AdapterServer> | undefined;
  return {
    start: async (options = {}) => {
      const s = await startSession(options.ownProcess === true ? undefined : (await (server ??= startAdapterServer())).port);
      sessions.push(s);
      return s;
    },
    /**
     * Disconnects as a test step. An adapter of its own then exits; a connection to the server is
     * closed. Either way stopAll must not ask it to disconnect again (that request would wait forever).
     */
    disconnect: async (s, args) => {
      sessions.splice(sessions.indexOf(s), 1);
      await s.client.disconnectRequest(args);
      (s.client as unknown as { stopAdapter: () => void }).stopAdapter();
    },
    /** kill -9 of the adapter process, as when VS Code dies: it says nothing to anyone. */
    kill: async (s) => {
      sessions.splice(sessions.indexOf(s), 1);
      const adapter = adapterProcess(s);
      const exited = new Promise((resolve) => adapter.once('exit', resolve));
      adapter.kill('SIGKILL');
      await exited;
    },
    stopAll: async () => {
      await Promise.all(sessions.splice(0).map((s) => s.client.stop()));
      await (await server)?.stop();
      server = undefined;
    },
  };
}

/** Launch arguments for a scripted run of `dir/pipeline.dot` (answers from case.json or script.json). */
/** A launch as `attractor run --scripted`: the script answers LLM nodes and, first, human gates. */
export function scriptedArgs(dir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const script = fs.existsSync(path.join(dir, 'case.json')) ? 'case.json' : 'script.json';
  return { program: path.join(dir, 'pipeline.dot'), cwd: dir, logsRoot: path.join(dir, '.run'), backend: 'scripted', scripted: path.join(dir, script), gateAnswers: 'script', ...extra };
}
