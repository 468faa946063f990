import fs from 'node:fs';
import os from 'node:os';

let identity: string | undefined;

/**
 * Which "host" this process is on, as far as pids go: the machine's boot (its boot id, new at every
 * boot) and the pid namespace the process sees (two containers on one machine are two hosts, and a
 * pid recorded in one names nothing in the other). Two engines with the same identity can check
 * each other's processes by pid; engines with different identities share only files. Where Linux's
 * /proc does not tell, the host name stands in.
 */
export function hostIdentity(): string {
  identity ??= readIdentity();
  return identity;
}

function readIdentity(): string {
  try {
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pids = /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))?.[1];
    if (boot && pids) return `${boot}/pid:${pids}`;
  } catch {
    // Not Linux, or no /proc.
  }
  return `host:${os.hostname()}`;
}

/**
 * Whether a record written with `recordedIdentity` (absent in a record from an engine before host
 * identities) and `recordedHost` (the host name) was written on this host.
 */
export function isThisHost(recordedIdentity: string | undefined, recordedHost: string | undefined): boolean {
  if (recordedIdentity !== undefined) return recordedIdentity === hostIdentity();
  return recordedHost === undefined || recordedHost === os.hostname();
}
