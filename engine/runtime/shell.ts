import { spawn } from 'node:child_process';

export interface ShellRun {
  readonly command: string;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /** Most bytes kept of each stream; the rest is dropped with a marker. */
  readonly outputCap?: number;
  readonly onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** Called with the process-group id once the command runs (recorded so a resume can reap orphans). */
  readonly onSpawn?: (processGroup: number) => void;
}

export interface ShellResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when the run was stopped by the abort signal (cancel or timeout). */
  readonly aborted: boolean;
}

const DEFAULT_CAP = 8 * 1024 * 1024;

/**
 * Runs `bash -c command` in its own process group, so cancelling kills the whole tree
 * (a pipeline, a test runner's workers), not only the shell.
 */
export function runShell(run: ShellRun): Promise<ShellResult> {
  const cap = run.outputCap ?? DEFAULT_CAP;
  return new Promise((resolve, reject) => {
    if (run.signal.aborted) {
      resolve({ exitCode: null, signal: null, stdout: '', stderr: '', aborted: true });
      return;
    }
    const child = spawn('bash', ['-c', run.command], {
      cwd: run.cwd,
      env: { ...process.env, ...run.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) run.onSpawn?.(child.pid);
    const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const sizes = { stdout: 0, stderr: 0 };
    const collect = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
      if (sizes[stream] < cap) chunks[stream].push(data.subarray(0, cap - sizes[stream]));
      sizes[stream] += data.length;
      run.onOutput?.(stream, data.toString('utf8'));
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    let aborted = false;
    const kill = () => {
      aborted = true;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000).unref();
    };
    run.signal.addEventListener('abort', kill, { once: true });
    child.on('error', (error) => {
      run.signal.removeEventListener('abort', kill);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      run.signal.removeEventListener('abort', kill);
      const text = (stream: 'stdout' | 'stderr') =>
        Buffer.concat(chunks[stream]).toString('utf8') + (sizes[stream] > cap ? `\n[… ${sizes[stream] - cap} more bytes dropped]\n` : '');
      resolve({ exitCode, signal, stdout: text('stdout'), stderr: text('stderr'), aborted });
    });
  });
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
