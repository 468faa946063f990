// Runs the extension's integration suite in a downloaded VS Code (@vscode/test-electron). Needs
// network access to download VS Code once; CI here uses the code-server e2e suite instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const repo = path.resolve(__dirname, '..', '..');
  const out = path.join(repo, '.vscode-test', 'suite');
  await esbuild.build({ entryPoints: [path.join(__dirname, 'suite.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], outfile: path.join(out, 'index.js'), logLevel: 'warning' });
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-electron-'));
  for (const name of ['human-review.dot', 'human-review.scripted.json']) fs.copyFileSync(path.join(repo, 'examples', name), path.join(workspace, name));
  await runTests({
    extensionDevelopmentPath: repo,
    extensionTestsPath: path.join(out, 'index.js'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
