// The project's bundles as the tests run them: built once per test run (`node esbuild.mjs
// --outdir=…`) into a private copy of the checkout's layout, <repo>/.test-bundles/<runner pid>/
// with package.json and dist/. Test files run concurrently; one that rebuilt dist/ in place could
// hand another a half-written bundle. Inside the repository, so the CLI's external packages still
// resolve from node_modules.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from './processes';

const root = path.resolve(__dirname, '..');
const bundlesRoot = path.join(root, '.test-bundles');
/** Every test file of one run shares its runner's pid. */
export const testCheckout = path.join(bundlesRoot, String(process.ppid));
export const testDist = path.join(testCheckout, 'dist');
const complete = path.join(testCheckout, '.complete');
const LOCK_WAIT_MS = 180_000;

/** Builds the bundles unless this run already has; returns their directory. */
export function ensureTestBundle(): string {
  const lock = `${testCheckout}.lock`;
  fs.mkdirSync(bundlesRoot, { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  // The first file to get here builds; the others wait for it.
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}: remove it if no test run is building`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    if (fs.existsSync(complete)) return testDist;
    removeBundlesOfFinishedRuns();
    const build = spawnSync(process.execPath, [path.join(root, 'esbuild.mjs'), `--outdir=${testDist}`], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`esbuild failed: ${build.stderr}`);
    fs.copyFileSync(path.join(root, 'package.json'), path.join(testCheckout, 'package.json'));
    fs.writeFileSync(complete, '');
    return testDist;
  } finally {
    fs.rmdirSync(lock);
  }
}

/** The bundled CLI (`attractor`). */
export function bundledCli(): string {
  return path.join(ensureTestBundle(), 'cli.js');
}

function removeBundlesOfFinishedRuns(): void {
  for (const entry of fs.readdirSync(bundlesRoot)) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid !== process.ppid && !isAlive(pid)) fs.rmSync(path.join(bundlesRoot, entry), { recursive: true, force: true });
  }
}
