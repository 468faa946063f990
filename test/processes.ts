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

/** The running processes of a group. */
export function processesOfGroup(group: number): number[] {
  return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && procStat(Number(entry))?.group === group && isAlive(Number(entry))).map(Number);
}

/** Whether any process of the group is still running. */
export function groupIsAlive(group: number): boolean {
  return fs.readdirSync('/proc').some((entry) => /^\d+$/.test(entry) && procStat(Number(entry))?.group === group && isAlive(Number(entry)));
}
