import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

/** `entry` bundled as the extension bundles it, with `vscode` resolved to test/extension/chat/fake-vscode.ts. */
export async function bundleWithFakeVscode<T>(entry: string): Promise<T> {
  const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-fake-vscode-bundle-')), 'bundle.js');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    logLevel: 'silent',
    plugins: [{ name: 'fake-vscode', setup: (b) => b.onResolve({ filter: /^vscode$/ }, () => ({ path: path.join(import.meta.dirname, 'chat', 'fake-vscode.ts') })) }],
  });
  return createRequire(import.meta.url)(outfile) as T;
}
