// What the sandbox tests need from the machine: a working bwrap (or the reason there is none, for
// their SKIP line), a PATH without it, and the CLI run as a real process.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundledCli } from './test-bundle';

/** Why bwrap cannot confine a command on this machine, or undefined when it can. */
export function bwrapUnusable(): string | undefined {
  const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', 'true'], { encoding: 'utf8' });
  if (probe.error) return `bwrap does not start here (${probe.error.message}); install bubblewrap to run these tests`;
  if (probe.status !== 0) return `bwrap cannot build a sandbox here: ${probe.stderr.trim()}`;
  return undefined;
}

/**
 * The `skip` option of a test that needs bwrap: a SKIP line naming why where bwrap cannot run
 * (the fresh-machine rule), but a failure where the machine promises it (`.ci/run` sets
 * ATTRACTOR_REQUIRE_BWRAP after installing bubblewrap): CI never passes with the sandbox untested.
 */
export function skipWithoutBwrap(): string | false {
  const unusable = bwrapUnusable();
  if (!unusable) return false;
  if (process.env.ATTRACTOR_REQUIRE_BWRAP) throw new Error(`ATTRACTOR_REQUIRE_BWRAP is set but ${unusable}`);
  return `SKIP sandbox: ${unusable}`;
}

/** A directory of links to everything on this PATH but bwrap: the machine as one without bubblewrap. */
export function pathWithoutBwrap(): string {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-no-bwrap-'));
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name === 'bwrap' || fs.existsSync(path.join(bin, name))) continue;
      fs.symlinkSync(path.join(dir, name), path.join(bin, name));
    }
  }
  return bin;
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `attractor ARGS` in `cwd` as a process of its own, without blocking this one (servers here must answer it). */
export function attractor(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bundledCli(), ...args], { cwd, env, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

export const fakeKey = 'sk-test-sandbox-3b9e71';

/** A working directory that is also $HOME, holding the secrets a person keeps there. */
export function homeWorkspace(parent = os.tmpdir()): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = fs.mkdtempSync(path.join(parent, 'attractor-sandbox-'));
  fs.mkdirSync(path.join(dir, '.ssh'));
  fs.writeFileSync(path.join(dir, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-MATERIAL\n');
  fs.mkdirSync(path.join(dir, '.aws'));
  fs.writeFileSync(path.join(dir, '.aws', 'credentials'), 'aws_secret_access_key=AWS-SECRET\n');
  fs.writeFileSync(path.join(dir, '.netrc'), 'machine example.com password NETRC-SECRET\n');
  const env = { ...process.env, HOME: dir, OPENAI_API_KEY: fakeKey };
  return { dir, env };
}

/** A pipeline of one tool node per command, run in order. */
export function toolPipeline(...commands: readonly string[]): string {
  const nodes = commands.map((command, index) => `  t${index} [shape=parallelogram, tool_command="${command.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"]`);
  const chain = ['start', ...commands.map((_, index) => `t${index}`), 'done'].join(' -> ');
  return `digraph sandboxed {\n  start [shape=Mdiamond]\n${nodes.join('\n')}\n  done [shape=Msquare]\n  ${chain}\n}\n`;
}
