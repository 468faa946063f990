// Packages test/e2e/scripted-lm-extension (the test-only chat model provider) as a .vsix for
// code-server, the way the real extension is packaged: an esbuild bundle and vsce.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

const source = path.join(__dirname, 'scripted-lm-extension');
const vsce = path.join(__dirname, '..', '..', 'node_modules', '@vscode', 'vsce', 'vsce');

/** The path of a freshly packaged attractor-scripted-lm .vsix. */
export async function packageScriptedLm(): Promise<string> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-scripted-lm-'));
  fs.copyFileSync(path.join(source, 'package.json'), path.join(folder, 'package.json'));
  await build({ entryPoints: [path.join(source, 'extension.ts')], bundle: true, platform: 'node', format: 'cjs', external: ['vscode'], outfile: path.join(folder, 'dist', 'extension.js'), logLevel: 'warning' });
  const vsix = path.join(folder, 'attractor-scripted-lm.vsix');
  const packed = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', vsix], { cwd: folder, encoding: 'utf8' });
  if (packed.status !== 0) throw new Error(`packaging the scripted model extension failed:\n${packed.stdout}\n${packed.stderr}`);
  return vsix;
}
