// The reference corpus as a user runs it: the `attractor` CLI process over a private copy of
// test/fixtures/reference-corpus (shared by the corpus's test files).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundledCli } from '../test-bundle';

export const corpus = path.resolve(import.meta.dirname, '../fixtures/reference-corpus');
let built = '';
const cli = () => (built ||= bundledCli());

export interface JsonDiagnostic {
  /** The file, when a command was given several. */
  file?: string;
  rule: string;
  code?: string;
  severity: string;
  message: string;
  node_id?: string;
  fix?: { title: string };
}

/** A private copy of the corpus to run in, so runs never write beside the fixtures. */
export function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-corpus-'));
  fs.cpSync(corpus, dir, { recursive: true });
  return dir;
}

export function attractor(cwd: string, ...args: string[]) {
  return attractorWith({}, cwd, ...args);
}

export function attractorWith(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [cli(), ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function diagnostics(command: 'lint' | 'validate', ...files: string[]): { status: number | null; diagnostics: JsonDiagnostic[] } {
  const result = attractor(corpus, command, ...files, '--json');
  assert.ok(result.status === 0 || result.status === 1, `${command} ${files.join(' ')} exited ${result.status}: ${result.stderr}`);
  const last = result.stdout.trim().split('\n').pop() ?? '';
  return { status: result.status, diagnostics: (JSON.parse(last) as { diagnostics: JsonDiagnostic[] }).diagnostics };
}

export function named(found: readonly JsonDiagnostic[], rule: string): JsonDiagnostic[] {
  return found.filter((d) => d.rule === rule || d.code === rule);
}

export function run(cwd: string, file: string, ...extra: string[]) {
  const result = attractor(cwd, 'run', file, '--logs-root', 'run', '--json', ...extra);
  const last = result.stdout.trim().split('\n').pop() ?? '{}';
  return { ...result, result: JSON.parse(last.startsWith('{') ? last : '{}') as { status?: string; failure_reason?: string | null } };
}

export function readJson(...segments: string[]): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(...segments), 'utf8')) as Record<string, unknown>;
}
