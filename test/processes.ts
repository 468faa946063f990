// What /proc says about processes the tests started (Linux). A zombie awaiting its reaper counts as
// gone: a container's init may never reap it.
import fs from 'node:fs';

/** The state letter and the process group of `pid`, or undefined once it has no /proc entry. */
function procStat(pid: number): { readonly state: string; readonly group: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the parenthesised command name: state, parent pid, process group, ...
  const [state = '', , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, group: Number(group) };
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
