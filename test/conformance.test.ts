// Every case of the shared conformance suite, through the built CLI, with the suite's own runner.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { ensureTestBundle, testCheckout } from './test-bundle';

const repoRoot = path.resolve(__dirname, '..');
const shared = path.resolve(repoRoot, '..', 'shared');
const casesDir = path.join(shared, 'conformance', 'cases');
const runner = path.join(shared, 'tools', 'run_cases.mjs');
const cases = fs.existsSync(casesDir) ? fs.readdirSync(casesDir).sort() : [];

describe('conformance cases (shared/conformance, through the bundled CLI)', () => {
  const failures = new Map<string, string>();
  let summary = '';

  before(() => {
    // The test bundle's directory is laid out as a checkout (package.json and dist/), which is what
    // the runner takes; its path is absolute, as the runner needs (it spawns from each case's directory).
    ensureTestBundle();
    const run = spawnSync(process.execPath, [runner, testCheckout, casesDir], { cwd: repoRoot, encoding: 'utf8', timeout: 15 * 60_000 });
    summary = `${run.stdout}${run.stderr}`;
    for (const line of run.stdout.split('\n')) {
      const match = /^FAIL ([^:]+): (.*)$/.exec(line);
      if (match) failures.set(match[1] as string, match[2] as string);
    }
    assert.match(run.stdout, /\d+ passed, \d+ failed/, `the case runner did not finish: ${summary.slice(-2000)}`);
  });

  it('finds the cases', () => {
    assert.ok(cases.length > 0, `no cases in ${casesDir}`);
  });

  for (const id of cases) {
    it(id, () => {
      assert.equal(failures.get(id), undefined, `case ${id} failed: ${failures.get(id)}`);
    });
  }
});
