import { spawn } from 'node:child_process';

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
  readonly env: NodeJS.ProcessEnv;
  readonly stdin?: string;
  readonly timeoutMs: number;
  /** Bytes kept per stream; the rest is dropped and reported as truncated. */
  readonly outputCapBytes: number;
  readonly signal: AbortSignal;
}

const killGraceMs = 2000;

/**
 * Runs `/bin/sh -c command` as the leader of its own process group, so a timeout or cancel kills
 * everything it started (`process.kill(-pid)`), not just the shell.
 */
export function runShellCommand(command: string, options: ProcessOptions): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = new CappedBuffer(options.outputCapBytes);
    const stderr = new CappedBuffer(options.outputCapBytes);
    let timedOut = false;
    let cancelled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const stop = (): void => {
      killGroup('SIGTERM');
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), killGraceMs);
    };
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => undefined); // the command may exit without reading its input
    child.stdin.end(options.stdin ?? '');
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timeout);
      options.signal.removeEventListener('abort', onAbort);
      // Whatever the shell left running in its group goes with it.
      killGroup('SIGKILL');
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

class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
