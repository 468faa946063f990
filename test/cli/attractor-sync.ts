// The bundled `attractor` CLI run to completion as a real process, for tests that look at its exit
// status, output and files afterwards.
import { spawnSync } from 'node:child_process';
import { bundledCli } from '../test-bundle';

let cli: string | undefined;

export function attractorSync(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  cli ??= bundledCli();
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', env });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}
