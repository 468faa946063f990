// What the serve test files share: a workspace of pipelines, servers stopped when the file ends,
// and a submitted run's id. (Kept out of serve-harness.ts, which the e2e driver imports outside node:test.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { call, serve, type Served } from './serve-harness';

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
  const server = await serve(cwd, ...args);
  running.push(server);
  return server;
}

/** Submits a pipeline (201 asserted) and returns the run's id. */
export async function submit(url: string, body: Record<string, unknown>, token?: string): Promise<string> {
  const reply = await call(`${url}/pipelines`, { body, ...(token ? { token } : {}) });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.id as string;
}
