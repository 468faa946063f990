// What the serve test files share: a workspace of pipelines, servers stopped when the file ends,
// and a submitted run's id. (Kept out of serve-harness.ts, which the e2e driver imports outside node:test.)
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { bundledCli } from '../test-bundle';
import { call, serveWith, type Served, type ServeProcess } from './serve-harness';

/** A fresh directory (its real path) holding `files`: name → text. */
export function workspaceWith(prefix: string, files: Readonly<Record<string, string>>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const running: Served[] = [];
after(async () => {
  await Promise.all(running.map((server) => server.stop()));
});

/** `attractor serve` in `cwd`, stopped when the test file ends. */
export async function started(cwd: string, ...args: string[]): Promise<Served> {
  return startedWith(cwd, {}, ...args);
}

/** `attractor serve` in `cwd`, its process started as `how` says, stopped when the test file ends. */
export async function startedWith(cwd: string, how: ServeProcess, ...args: string[]): Promise<Served> {
  const server = await serveWith(cwd, how, ...args);
  running.push(server);
  return server;
}

/** Submits a pipeline (201 asserted) and returns the run's id. */
export async function submit(url: string, body: Record<string, unknown>, token?: string): Promise<string> {
  const reply = await call(`${url}/pipelines`, { body, ...(token ? { token } : {}) });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.id as string;
}

export interface ServedCliRun {
  readonly child: ChildProcessWithoutNullStreams;
  /** The CLI's exit code. */
  readonly exited: Promise<number | null>;
  /** `http://127.0.0.1:PORT`, and the run's id there. */
  readonly base: string;
  readonly id: string;
  readonly runUrl: string;
  /** What the CLI printed on stderr so far. */
  stderr(): string;
}

/** `attractor run PIPELINE --serve 0 ARGS…` in `cwd`, once it printed the URL it follows the run at. */
export async function runServed(cwd: string, pipeline: string, ...args: string[]): Promise<ServedCliRun> {
  const child = spawn(process.execPath, [bundledCli(), 'run', pipeline, '--serve', '0', ...args], { cwd });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = '';
  const runUrl = await new Promise<string>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /following this run at (http:\/\/127\.0\.0\.1:\d+\/pipelines\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, exited, runUrl, base: runUrl.slice(0, runUrl.indexOf('/pipelines')), id: runUrl.slice(runUrl.lastIndexOf('/') + 1), stderr: () => stderr };
}
