import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/**
 * The guard's script. It reads lines from the engine: `+PGID RECORD` (a command's group started, and
 * its record in the run directory, its bytes outside [A-Za-z0-9._/-] escaped as \xHH), `-PGID` (it
 * ended), `~MS` (kill the groups at MS, epoch milliseconds, unless told a later time; `~` alone: no
 * time). It kills every group still listed — and then removes its record, the kill's confirmation for
 * an engine on another host waiting to run the node again — when its input ends (the engine exited or
 * was killed, even with SIGKILL, since the kernel then closes the pipe), or when the time it was last
 * told passes (the engine no longer renews its run lock: frozen, stalled, or cut off from the shared
 * file system).
 */
const GUARD_SCRIPT = [
  'declare -A g; d=',
  // Every kill before any removal: a file system cut off may hang a removal.
  'fence() { for p in "${!g[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done; for p in "${!g[@]}"; do [ -z "${g[$p]}" ] || rm -f -- "${g[$p]}"; done; g=(); }',
  'while :; do',
  '  if [ -n "$d" ]; then',
  '    n=${EPOCHREALTIME/[.,]/}; w=$((d - n / 1000))',
  '    if ((w <= 0)); then fence; d=; continue; fi',
  '    printf -v ms %03d $((w % 1000)); read -r -t "$((w / 1000)).$ms" l; r=$?',
  '  else read -r l; r=$?; fi',
  '  ((r > 128)) && continue',
  '  ((r == 0)) || break',
  '  case $l in',
  '    +*) x=${l#+}; p=${x%% *}; f=; [ "$x" = "$p" ] || printf -v f %b "${x#* }"; g[$p]=$f;;',
  '    -*) unset "g[${l#-}]";;',
  "    '~'*) d=${l#'~'};;",
  '  esac',
  'done',
  'fence',
].join('\n');

let guard: ChildProcess | undefined;
/** When the guard is to kill the groups (epoch ms), as last told; undefined: only when the engine is gone. */
let killAt: number | undefined;

/**
 * Commands run in process groups of their own (a cancel kills their whole tree), which also makes them
 * outlive an engine killed on its own (an OOM kill, a crashed Node, kill -9 of a worker): the node's
 * command would go on while another engine runs the node again. So each engine process keeps one guard
 * (a shell in a session of its own, started with its first command) that kills the groups still
 * running when the engine is gone — or when the engine has stopped renewing its run locks for so long
 * that an engine on another host may take a run over (`killBy`, from run-lock.ts): a frozen engine's
 * commands die before their node can run elsewhere. The run directory's process records still let
 * the next engine reap what a guard killed along with the engine (a machine lost) could not.
 */
export const groupGuard = {
  /** The group `pgid` started, recorded at `record` (the guard removes it once it killed the group). */
  started(pgid: number, record?: string): void {
    tell(`+${pgid}${record === undefined ? '' : ` ${escapeBytes(record)}`}`, true);
  },
  ended(pgid: number): void {
    tell(`-${pgid}`, true);
  },
  /** From now on the guard kills the groups at `deadline` (epoch ms) unless told a later one; undefined: only when the engine is gone. */
  killBy(deadline: number | undefined): void {
    if (deadline === killAt) return;
    killAt = deadline;
    tell(deadlineLine(), false);
  },
};

function deadlineLine(): string {
  return `~${killAt === undefined ? '' : Math.floor(killAt)}`;
}

/** `spawn`: start a guard if none runs (a deadline alone needs none: a new guard is told the current one first). */
function tell(line: string, spawnIfNone: boolean): void {
  const stdin = (spawnIfNone ? guardProcess() : running())?.stdin;
  // The guard may be gone (killed on its own): the commands then go only with their own end.
  if (stdin && !stdin.destroyed) stdin.write(`${line}\n`);
}

function running(): ChildProcess | undefined {
  return guard?.exitCode === null && guard.signalCode === null ? guard : undefined;
}

function guardProcess(): ChildProcess | undefined {
  const live = running();
  if (live) return live;
  try {
    // No startup file of the machine's shell setup; LC_ALL=C: $EPOCHREALTIME with a '.' whatever the locale.
    const { BASH_ENV: _bashEnv, ENV: _env, ...inherited } = process.env;
    guard = spawn('bash', ['-c', GUARD_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: { ...inherited, LC_ALL: 'C' } });
  } catch {
    return undefined;
  }
  guard.on('error', () => undefined);
  guard.stdin?.on('error', () => undefined);
  // Neither the guard nor its pipe keeps the engine's process alive.
  guard.unref();
  (guard.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
  if (killAt !== undefined) guard.stdin?.write(`${deadlineLine()}\n`);
  return guard;
}

/** `text` for a line of the guard's input, read back with printf's %b: no space, newline or backslash left. */
function escapeBytes(text: string): string {
  return [...Buffer.from(text)].map((byte) => (/[A-Za-z0-9._/-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`)).join('');
}
