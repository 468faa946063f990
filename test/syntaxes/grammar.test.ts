import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';

const repo = path.resolve(__dirname, '../..');

it('the TextMate grammar is generated from the attribute table and current', () => {
  const check = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/generate-grammar.ts', '--check'], { cwd: repo, encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
});

it('the TextMate grammar scopes pipelines as the syntax tests expect', () => {
  const bin = path.join(repo, 'node_modules', '.bin', 'vscode-tmgrammar-test');
  const run = spawnSync(bin, ['-g', 'syntaxes/attractor-dot.tmLanguage.json', 'test/syntaxes/*.test.dot'], { cwd: repo, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
