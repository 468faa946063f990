import { execFile } from 'node:child_process';
import path from 'node:path';
import { bundledCli } from '../test-bundle';

const repo = path.resolve(__dirname, '../..');

/**
 * Runs the real CLI (the bundled `attractor`, test-bundle.ts) as a child process, asynchronously so
 * the fake provider in this process can answer it. Provider variables come only from `env`.
 */
export function runCli(args: readonly string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(OPENAI|ANTHROPIC|GEMINI|GOOGLE|ATTRACTOR)_/.test(key)));
  return new Promise((resolve) => {
    execFile(process.execPath, [bundledCli(), ...args], { env: { ...clean, ...env }, cwd: repo }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
