import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

/**
 * Builds the real bundles (`node esbuild.mjs`) into a private directory and returns the CLI's path.
 * A private copy, because other test files rebuild dist/ while this one spawns it.
 */
export function buildCli(): string {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-dist-'));
  const build = spawnSync(process.execPath, [path.join(root, 'esbuild.mjs'), `--outdir=${outdir}`], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`esbuild failed: ${build.stderr}`);
  return path.join(outdir, 'cli.js');
}
