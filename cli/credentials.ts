import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isCredentialVariable } from '../engine/runtime/child-environment';

/**
 * Provider keys leave the CLI's environment before anything runs. A process's initial environment
 * stays readable in /proc/<pid>/environ for its whole life (deleting from process.env does not
 * change it), and every tool the engine starts is its descendant: `cat /proc/$PPID/environ` would
 * print the keys. So a CLI started with keys replaces itself (execve, same pid, same stdio) with a
 * copy of itself whose environment holds none, handing the keys over in a file only this user can
 * read, which the new image reads and deletes before it does anything else.
 */
const HANDOFF_VARIABLE = 'ATTRACTOR_CREDENTIALS_FILE';

export type Credentials = Readonly<Record<string, string>>;

type Execve = (file: string, args: readonly string[], env: NodeJS.ProcessEnv) => never;

/**
 * The credentials this process runs with, out of `process.env`. Relaunches first when the Node
 * runtime can replace its image (Node ≥ 22.15); on an older one the keys stay in this process's
 * initial environment (`attractor doctor` says so), and only `process.env` loses them.
 */
export function takeCredentials(): Credentials {
  const handoff = process.env[HANDOFF_VARIABLE];
  if (handoff !== undefined) {
    delete process.env[HANDOFF_VARIABLE];
    return receive(handoff);
  }
  const credentials = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => isCredentialVariable(entry[0]) && entry[1] !== undefined));
  if (Object.keys(credentials).length === 0) return credentials;
  const execve = (process as { execve?: Execve }).execve;
  if (execve) relaunch(execve, credentials);
  for (const name of Object.keys(credentials)) delete process.env[name];
  return credentials;
}

/** The credential variables /proc/self/environ still shows (Linux), or undefined where there is no /proc. */
export function credentialsInInitialEnvironment(): string[] | undefined {
  let environ: string;
  try {
    environ = fs.readFileSync('/proc/self/environ', 'utf8');
  } catch {
    return undefined;
  }
  return environ
    .split('\0')
    .map((entry) => entry.slice(0, Math.max(0, entry.indexOf('='))))
    .filter(isCredentialVariable);
}

function relaunch(execve: Execve, credentials: Credentials): void {
  const file = writeHandoff(credentials);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !isCredentialVariable(name)));
  try {
    execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...env, [HANDOFF_VARIABLE]: file });
  } catch {
    // The runtime refused to replace the image: go on in this process, as on an older Node.
    removeHandoff(file);
  }
}

/** A directory only this user can enter, on a RAM-backed file system where there is one. */
function writeHandoff(credentials: Credentials): string {
  const parent = [process.env.XDG_RUNTIME_DIR, '/dev/shm'].find((dir) => dir && isDirectory(dir)) ?? os.tmpdir();
  const dir = fs.mkdtempSync(path.join(parent, 'attractor-keys-'));
  const file = path.join(dir, 'credentials.json');
  fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600, flag: 'wx' });
  return file;
}

function receive(file: string): Credentials {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => isCredentialVariable(entry[0]) && typeof entry[1] === 'string'));
  } catch (error) {
    throw new Error(`cannot read the provider keys handed over at start (${HANDOFF_VARIABLE}=${file}): ${(error as Error).message}`, { cause: error });
  } finally {
    removeHandoff(file);
  }
}

function removeHandoff(file: string): void {
  fs.rmSync(file, { force: true });
  try {
    fs.rmdirSync(path.dirname(file));
  } catch {
    // Not empty or already gone: only the directory made for the handoff is removed, never more.
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
