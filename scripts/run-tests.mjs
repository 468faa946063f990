// Runs every *.test.ts under test/ with node's built-in test runner (TypeScript through tsx).
// Usage: node scripts/run-tests.mjs [substring filter...]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.name.endsWith('.test.ts') && (filters.length === 0 || filters.some((f) => full.includes(f)))) files.push(full);
  }
})('test');
files.sort();
// A test file whose process cannot end (a server or browser left open) fails at this bound
// instead of holding the suite; a healthy file on a busy 2-core machine ends well inside it.
const FILE_TIMEOUT_MS = 300_000;
console.log(`# node ${process.version} (${process.execPath}), ${files.length} test files`);
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${FILE_TIMEOUT_MS}`, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
