// Time travel's snapshots of the working directory never take a copy of a secrets file: `.env`
// and `.env.*` stay out of the run's object store wherever they lie, and a restore leaves them
// alone (CLI process; the store read with git).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';
import { toolChain } from '../fixtures/tool-pipelines';

const SECRET = 'sk-not-for-the-snapshot-4242';

// The secret itself is only in the secrets files (the pipeline file is snapshotted like any other).
const pipeline = toolChain('secrets', { work: 'echo result > out.txt && cp .env api/.env.production && echo ROTATED=1 >> .env', more: 'echo again >> out.txt' });

/** Every object the run's store holds, as text. */
function storeContents(store: string): string {
  const git = (args: string[], input?: string) => spawnSync('git', [`--git-dir=${store}`, ...args], { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  const ids = git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).stdout;
  assert.ok(ids.trim().length > 0, 'the run took snapshots');
  return git(['cat-file', '--batch'], ids).stdout;
}

describe('secrets files and workspace snapshots (CLI)', () => {
  it('keeps .env and .env.* out of the snapshot store, out of trace --files, and untouched by resume --from', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-secrets-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
    fs.writeFileSync(path.join(dir, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
    fs.mkdirSync(path.join(dir, 'api'));
    fs.writeFileSync(path.join(dir, 'api', '.env.local'), `TOKEN=${SECRET}\n`);
    const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
    assert.equal(run.status, 0, run.stderr);

    const contents = storeContents(path.join(dir, 'run', 'workspace.git'));
    assert.match(contents, /result/, 'the run\'s other files are snapshotted');
    assert.ok(!contents.includes(SECRET), 'a secrets file was copied into the snapshot store');
    const trace = attractor(dir, ['trace', 'run', '--files']);
    assert.equal(trace.status, 0, trace.stderr);
    assert.match(trace.stdout, /A out\.txt/);
    assert.doesNotMatch(trace.stdout, /\.env/);

    // Back to before `work`: out.txt goes, the secrets files are the user's and stay as they are.
    const envBefore = fs.readFileSync(path.join(dir, '.env'), 'utf8');
    const resumed = attractor(dir, ['resume', 'run', '--from', 'work']);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'api', '.env.production')));
    assert.ok(fs.readFileSync(path.join(dir, '.env'), 'utf8').startsWith(envBefore));
  });
});
