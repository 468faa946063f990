// Runs every *.test.ts under test/ (test/fixtures/ holds data, not tests) with node's built-in test
// runner, on the test files compiled once by esbuild (scripts/compile-tests.mjs: tsx's start-up in
// every test process cost more CPU than most tests), with source maps so that failures point at the
// .ts lines, the longest files first (scripts/test-order.mjs). What a test file started is killed
// when the file ends (scripts/test-reaper.mjs).
// Usage: node scripts/run-tests.mjs [--probe=FILE] [--concurrency=N] [--dir=DIR] [--file-timeout=MS] [substring filter...]
// --probe appends each test file's wall time and CPU to FILE (scripts/test-probe.mjs); --concurrency
// runs N test files at once (default two per core, at most 8); --dir and
// --file-timeout are for the runner's own test (test/scripts/run-tests.test.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileTests } from './compile-tests.mjs';
import { reapTestFiles, runnerEnvironment } from './test-reaper.mjs';
import { longestFirst } from './test-order.mjs';

const option = (name) => process.argv.slice(2).find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const dir = option('dir') ?? 'test';
// Two files per core: most of a file's time is spent waiting (on the servers, browsers, runs and
// leases it starts), not computing — on 2 cores, 4 at once took the suite from 536 to 304 s of wall
// for the same CPU (docs/testing.md).
const concurrency = Number(option('concurrency') ?? Math.min(8, 2 * os.availableParallelism()));
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`run-tests: --concurrency takes a whole number of test files to run at once, not ${option('concurrency')}`);
  process.exit(2);
}
const all = [];
(function walk(at) {
  for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
    const full = path.join(at, entry.name);
    if (entry.isDirectory() && full !== path.join('test', 'fixtures')) walk(full);
    else if (entry.name.endsWith('.test.ts')) all.push(full);
  }
})(dir);
all.sort();
const files = (dir === 'test' ? longestFirst(all) : all).filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
// Every test file is compiled, whatever the filter, so a filtered run and the next full one share the build.
// The compiled files require() the ES-module-only packages (the Graphviz WASM, @google/genai, fast-check):
// a Node older than 20.19 cannot, and runs the .ts files through tsx instead.
const compile = process.features.require_module === true;
const { compiled, built } = compile ? await compileTests(all) : { compiled: (file) => file, built: false };
const probe = option('probe');
const reaper = ['--import', path.join(import.meta.dirname, 'test-reaper.mjs'), ...(probe === undefined ? [] : ['--import', path.join(import.meta.dirname, 'test-probe.mjs')])];
const runner = compile ? ['--enable-source-maps', ...reaper] : ['--import', 'tsx', ...reaper];
// A test file whose process cannot end (a server or browser left open) fails at this bound
// instead of holding the suite; a healthy file on a busy 2-core machine ends well inside it.
const FILE_TIMEOUT_MS = Number(option('file-timeout') ?? 300_000);
console.log(`# node ${process.version} (${process.execPath}), ${files.length} test files${built ? ' (compiled)' : ''}, ${concurrency} at once`);
const child = spawn(process.execPath, [...runner, path.join(import.meta.dirname, 'run-in-order.mjs'), `--concurrency=${concurrency}`, `--file-timeout=${FILE_TIMEOUT_MS}`, ...files.map(compiled)], { stdio: 'inherit', env: { ...runnerEnvironment(), ...(probe === undefined ? {} : { ATTRACTOR_TEST_PROBE: path.resolve(probe) }) } });
const reaping = reapTestFiles(child.pid);
child.on('exit', (code) => {
  reaping.stop();
  process.exit(code ?? 1);
});
