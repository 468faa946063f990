// Runs every *.test.ts under test/ with node's built-in test runner, on the test files compiled
// once by esbuild (scripts/compile-tests.mjs: tsx's start-up in every test process cost more CPU
// than most tests), with source maps so that failures point at the .ts lines.
// Usage: node scripts/run-tests.mjs [substring filter...]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { compileTests } from './compile-tests.mjs';

const filters = process.argv.slice(2);
const all = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.name.endsWith('.test.ts')) all.push(full);
  }
})('test');
all.sort();
const files = all.filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
// Every test file is compiled, whatever the filter, so a filtered run and the next full one share the build.
// The compiled files require() the ES-module-only packages (the Graphviz WASM, @google/genai, fast-check):
// a Node older than 20.19 cannot, and runs the .ts files through tsx instead.
const compile = process.features.require_module === true;
const { compiled, built } = compile ? await compileTests(all) : { compiled: (file) => file, built: false };
const runner = compile ? ['--enable-source-maps'] : ['--import', 'tsx'];
// A test file whose process cannot end (a server or browser left open) fails at this bound
// instead of holding the suite; a healthy file on a busy 2-core machine ends well inside it.
const FILE_TIMEOUT_MS = 300_000;
console.log(`# node ${process.version} (${process.execPath}), ${files.length} test files${built ? ' (compiled)' : ''}`);
const result = spawnSync(process.execPath, [...runner, '--test', '--test-concurrency=2', `--test-timeout=${FILE_TIMEOUT_MS}`, ...files.map(compiled)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
