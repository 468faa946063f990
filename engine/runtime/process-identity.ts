import fs from 'node:fs';

/**
 * A process's start time in clock ticks since boot (field 22 of /proc/PID/stat): with the pid it
 * names one process for good, so a record of it never matches a later process that got the same
 * pid. Undefined when the process is gone or the system has no /proc.
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the parenthesised command name start with field 3 (state); 22 is the start time.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return undefined;
  return fields[19];
}

/** Whether the process a record names still runs: the same pid with the same start time. */
export function isSameProcess(pid: number, startTime: string | undefined): boolean {
  if (startTime !== undefined && fs.existsSync('/proc/self/stat')) return processStartTime(pid) === startTime;
  // Without /proc there is only the pid to go by.
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
