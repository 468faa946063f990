import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/**
 * The guard's script: it reads `+PGID` and `-PGID` lines (a command's group started, ended) and, when
 * its input ends — the engine process exited or was killed, even with SIGKILL, since the kernel then
 * closes the pipe — kills every group still listed.
 */
const GUARD_SCRIPT = 'declare -A g; while read -r l; do case $l in +*) g[${l#+}]=1;; -*) unset "g[${l#-}]";; esac; done; for p in "${!g[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done';

let guard: ChildProcess | undefined;

/**
 * Commands run in process groups of their own (a cancel kills their whole tree), which also makes them
 * outlive an engine killed on its own (an OOM kill, a crashed Node, kill -9 of a worker): the node's
 * command would go on while another engine runs the node again. So each engine process keeps one guard
 * (a shell in a session of its own, started with its first command) that kills the groups still
 * running when the engine is gone. The run directory's process records still let the next engine
 * reap what a guard killed along with the engine (a machine lost) could not.
 */
export const groupGuard = {
  started(pgid: number): void {
    tell(`+${pgid}`);
  },
  ended(pgid: number): void {
    tell(`-${pgid}`);
  },
};

function tell(line: string): void {
  const stdin = guardProcess()?.stdin;
  // The guard may be gone (killed on its own): the commands then go only with their own end.
  if (stdin && !stdin.destroyed) stdin.write(`${line}\n`);
}

function guardProcess(): ChildProcess | undefined {
  if (guard?.exitCode === null && guard.signalCode === null) return guard;
  try {
    guard = spawn('bash', ['-c', GUARD_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  } catch {
    return undefined;
  }
  guard.on('error', () => undefined);
  guard.stdin?.on('error', () => undefined);
  // Neither the guard nor its pipe keeps the engine's process alive.
  guard.unref();
  (guard.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
  return guard;
}
