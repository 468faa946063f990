// The runner (scripts/run-tests.mjs) kills what a test file started once the file ends, by failing
// or by overrunning the runner's bound: the fixtures of test/fixtures/run-tests/ leave processes of
// every kind behind, under a bound of 5 s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { isAlive } from '../processes';

const root = path.resolve(__dirname, '../..');

test('a test file that fails or hangs leaves no process behind', async () => {
  const pidsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-tests-'));
  const run = spawn(process.execPath, ['scripts/run-tests.mjs', '--dir=test/fixtures/run-tests', '--file-timeout=5000', '--concurrency=2'], { cwd: root, env: { ...process.env, RUN_TESTS_PIDS: pidsDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => run.on('exit', resolve));
  assert.notEqual(code, 0, output);
  assert.match(output, /^# pass 1$/m, output);
  assert.match(output, /^# fail 1$/m, output);
  assert.match(output, /^# cancelled 1$/m, output);
  assert.match(output, /^ok \d+ - the processes of an ended test file are gone while the run goes on$/m, output);
  for (const file of ['fails', 'hangs']) {
    const pids = JSON.parse(fs.readFileSync(path.join(pidsDir, `${file}.json`), 'utf8')) as number[];
    assert.equal(pids.length, 5);
    assert.deepEqual(pids.filter(isAlive), [], `what ${file}.test.ts left is gone when the run ends`);
  }
  fs.rmSync(pidsDir, { recursive: true, force: true });
});
