import { spawn } from 'node:child_process';
import type { Confinement } from './bubblewrap';
import { bwrapArguments } from './bubblewrap';
import { groupGuard } from './group-guard';
import { currentProcessGroupRecords } from './process-records';

export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly truncated: boolean;
}

export interface ProcessOptions {
  readonly cwd: string;
  /** The complete environment of the command (callers decide what it inherits, e.g. no API keys). */
  readonly env: NodeJS.ProcessEnv;
  readonly stdin?: string;
  /** No limit when absent (a tool node's own `timeout` aborts `signal` instead). */
  readonly timeoutMs?: number;
  /** Bytes kept per stream, half from the start and half from the end; the middle is dropped and reported as truncated. */
  readonly outputCapBytes: number;
  readonly signal: AbortSignal;
  /** Live output, as it arrives. */
  readonly onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** Run inside this bubblewrap sandbox; absent: unconfined. */
  readonly confinement?: Confinement;
}

const killGraceMs = 2000;

/**
 * Runs `bash -c command` as the leader of its own process group, so a timeout or cancel kills
 * everything it started (`process.kill(-pid)`), not just the shell; whatever the command left
 * running in its group when it exits goes with it, and the engine's group guard kills the group if
 * the engine dies first. Used by tool nodes, the agent's shell tool and
 * tool hooks alike. A confined command runs under bwrap, which stays in the group (no
 * --new-session) and takes its whole process namespace down with it.
 */
export function runShellCommand(command: string, options: ProcessOptions): Promise<ProcessResult> {
  // Commands must not depend on the machine's shell setup: a non-interactive bash sources $BASH_ENV,
  // and Debian's bash sources ~/.bashrc when its stdin is a socket (Node's pipes are) at SHLVL 0.
  const { BASH_ENV: _bashEnv, ENV: _env, ...inherited } = options.env;
  const env = { SHLVL: '1', ...inherited };
  return new Promise((resolve) => {
    const shell = ['bash', '-c', command];
    const { file, args } = options.confinement ? { file: options.confinement.bwrap, args: [...bwrapArguments(options.confinement, options.cwd), ...shell] } : { file: 'bash', args: shell.slice(1) };
    const child = spawn(file, args, { cwd: options.cwd, env, detached: true, stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    // Recorded in the run directory (when inside a run) so the next engine there can reap an orphan.
    const records = currentProcessGroupRecords();
    if (child.pid !== undefined) {
      groupGuard.started(child.pid, records?.fileOf(child.pid));
      records?.started(child.pid);
    }
    const stdout = new CappedBuffer(options.outputCapBytes);
    const stderr = new CappedBuffer(options.outputCapBytes);
    let timedOut = false;
    let cancelled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const killGroup = (signal: NodeJS.Signals): void => killProcessGroup(child.pid, signal);
    const stop = (): void => {
      killGroup('SIGTERM');
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), killGraceMs);
    };
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    const timeout =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeoutMs);
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();

    child.stdout?.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      options.onOutput?.('stdout', chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      options.onOutput?.('stderr', chunk);
    });
    child.stdin?.on('error', () => undefined); // the command may exit without reading its input
    child.stdin?.end(options.stdin);
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (timeout) clearTimeout(timeout);
      options.signal.removeEventListener('abort', onAbort);
      // Whatever the shell left running in its group goes with it.
      killGroup('SIGKILL');
      if (child.pid !== undefined) {
        records?.ended(child.pid);
        groupGuard.ended(child.pid);
      }
      if (killTimer) clearTimeout(killTimer);
      resolve({ exitCode, signal, stdout: stdout.text(), stderr: stderr.text(), timedOut, cancelled, truncated: stdout.truncated || stderr.truncated });
    };
    child.on('error', (error) => {
      stderr.push(Buffer.from(error.message));
      finish(null, null);
    });
    child.on('close', finish);
  });
}

export function killProcessGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * One stream's capture, bounded: the first half of the cap and a rolling last half. What the
 * command printed last (a gate's verdict line) survives however much came before it.
 */
class CappedBuffer {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private readonly tail: Buffer[] = [];
  private tailSize = 0;
  /** Bytes of whole chunks dropped from the front of the tail. */
  private dropped = 0;
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(cap: number) {
    this.tailCap = Math.floor(cap / 2);
    this.headCap = cap - this.tailCap;
  }

  get truncated(): boolean {
    return this.dropped + Math.max(0, this.tailSize - this.tailCap) > 0;
  }

  push(chunk: Buffer): void {
    const toHead = Math.min(chunk.length, this.headCap - this.headSize);
    if (toHead > 0) {
      this.head.push(chunk.subarray(0, toHead));
      this.headSize += toHead;
    }
    if (toHead === chunk.length) return;
    this.tail.push(chunk.subarray(toHead));
    this.tailSize += chunk.length - toHead;
    // Drop whole chunks while the rest still covers the tail: no copying on the hot path.
    for (let first = this.tail[0]; first && this.tail.length > 1 && this.tailSize - first.length >= this.tailCap; first = this.tail[0]) {
      this.tail.shift();
      this.tailSize -= first.length;
      this.dropped += first.length;
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const excess = Math.max(0, this.tailSize - this.tailCap);
    const tail = Buffer.concat(this.tail).subarray(excess).toString('utf8');
    const omitted = this.dropped + excess;
    return omitted === 0 ? head + tail : `${head}\n[… ${omitted} bytes omitted …]\n${tail}`;
  }
}
