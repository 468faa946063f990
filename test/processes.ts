// What /proc says about processes the tests started (Linux). A zombie awaiting its reaper counts as
// gone: a container's init may never reap it.
import fs from 'node:fs';

/** The state letter, the parent and the process group of `pid`, or undefined once it has no /proc entry. */
function procStat(pid: number): { readonly state: string; readonly parent: number; readonly group: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the parenthesised command name: state, parent pid, process group, ...
  const [state = '', parent, group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, parent: Number(parent), group: Number(group) };
}

/** Whether a process is still running. */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/**
 * Whether the process that wrote `pid` as its `$$` still runs in `cwd`. A confined command (bwrap's
 * own pid namespace) knows only its namespace's pid: the last entry of NSpid in /proc/PID/status.
 */
export function recordedPidAlive(pid: number, cwd: string): boolean {
  const dir = fs.realpathSync(cwd);
  return fs.readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry) || !isAlive(Number(entry))) return false;
    try {
      const nspid = /^NSpid:\s+(.*)$/m.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]?.trim().split(/\s+/);
      return Number(nspid?.at(-1)) === pid && fs.readlinkSync(`/proc/${entry}/cwd`) === dir;
    } catch {
      return false;
    }
  });
}

/** The running processes of a group. */
export function processesOfGroup(group: number): number[] {
  return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && procStat(Number(entry))?.group === group && isAlive(Number(entry))).map(Number);
}

/** Whether any process of the group is still running. */
export function groupIsAlive(group: number): boolean {
  return fs.readdirSync('/proc').some((entry) => /^\d+$/.test(entry) && procStat(Number(entry))?.group === group && isAlive(Number(entry)));
}

/** The running children of `pid`, with their command lines. */
function childrenOf(pid: number): { readonly pid: number; readonly command: string }[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry) || !isAlive(Number(entry))) return [];
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) return [];
      return [{ pid: Number(entry), command: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ') }];
    } catch {
      return [];
    }
  });
}

/**
 * Kills the group guard of the engine `pid` (the shell that kills the engine's command groups when
 * the engine dies), as a machine's processes can die in any order: what the engine left running is
 * then for the next engine's reaping alone. Rejects when the engine keeps no guard.
 */
export async function killGroupGuard(pid: number): Promise<void> {
  // Just spawned, the guard may not have exec'd bash yet.
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const guard = childrenOf(pid).find((child) => child.command.startsWith('bash -c declare -A g'));
    if (guard) return void process.kill(guard.pid, 'SIGKILL');
  }
  throw new Error(`the engine ${pid} keeps no group guard: its children are ${JSON.stringify(childrenOf(pid))}`);
}

/** The processes working in `cwd` (a tool's whole tree: bash, sleep). */
export function processesIn(cwd: string): number[] {
  return fs.readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry) || !isAlive(Number(entry))) return false;
    try {
      return fs.readlinkSync(`/proc/${entry}/cwd`) === cwd;
    } catch {
      return false;
    }
  }).map(Number);
}

/** The parent of `pid` (0 once it is gone). */
export function parentOf(pid: number): number {
  return procStat(pid)?.parent ?? 0;
}
