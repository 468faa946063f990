import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { backoffMs, defaultRetryPolicy } from '../../engine/runtime/retry-policy';
import { retryAfterMs } from '../../engine/llm/provider-errors';
import type { ToolContext } from '../../engine/llm/tools/agent-tool';
import { editFileTool, listDirTool, readFileTool, writeFileTool } from '../../engine/llm/tools/file-tools';
import { BoundedRegex } from '../../engine/llm/tools/bounded-regex';
import { globToRegExp } from '../../engine/llm/tools/glob-pattern';
import { globTool, grepTool } from '../../engine/llm/tools/search-tools';
import { shellTool } from '../../engine/llm/tools/shell-tool';
import { Workspace } from '../../engine/llm/tools/workspace';
import { ProviderError } from '../../engine/runtime/backend';

describe('workspace tools', () => {
  let root: string;
  let context: ToolContext;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-'));
    fs.mkdirSync(path.join(root, 'src/deep'), { recursive: true });
    fs.mkdirSync(path.join(root, 'node_modules/pkg'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\nexport const b = 2;\n');
    fs.writeFileSync(path.join(root, 'src/deep/c.ts'), 'const needle = true;\n');
    fs.writeFileSync(path.join(root, 'src/notes.md'), 'needle in markdown\n');
    fs.writeFileSync(path.join(root, 'node_modules/pkg/index.ts'), 'needle\n');
    context = { workspace: new Workspace(root), signal: new AbortController().signal, env: { PATH: process.env.PATH }, shellTimeoutMs: 10_000, outputCapBytes: 64 };
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('read_file reads whole files or a line window', async () => {
    assert.equal(await readFileTool.execute({ path: 'src/a.ts' }, context), 'export const a = 1;\nexport const b = 2;\n');
    assert.equal(await readFileTool.execute({ path: 'src/a.ts', offset: 2, limit: 1 }, context), 'export const b = 2;');
    await assert.rejects(readFileTool.execute({ path: 'nope.txt' }, context), /read_file nope.txt: no such file or directory/);
  });

  it('edit_file needs a unique match unless replace_all', async () => {
    await writeFileTool.execute({ path: 'e.txt', content: 'x y x' }, context);
    await assert.rejects(editFileTool.execute({ path: 'e.txt', old_string: 'x', new_string: 'z' }, context), /occurs 2 times/);
    await assert.rejects(editFileTool.execute({ path: 'e.txt', old_string: 'q', new_string: 'z' }, context), /old_string not found/);
    assert.equal(await editFileTool.execute({ path: 'e.txt', old_string: 'y', new_string: '$&' }, context), 'replaced 1 occurrence(s) in e.txt');
    assert.equal(await editFileTool.execute({ path: 'e.txt', old_string: 'x', new_string: 'z', replace_all: true }, context), 'replaced 2 occurrence(s) in e.txt');
    assert.equal(fs.readFileSync(path.join(root, 'e.txt'), 'utf8'), 'z $& z');
  });

  it('list_dir, glob and grep (skipping node_modules)', async () => {
    assert.equal(await listDirTool.execute({ path: 'src' }, context), 'a.ts\ndeep/\nnotes.md');
    assert.equal(await globTool.execute({ pattern: '**/*.ts' }, context), 'src/a.ts\nsrc/deep/c.ts');
    assert.equal(await globTool.execute({ pattern: '*.{md,txt}', path: 'src' }, context), 'src/notes.md');
    assert.equal(await grepTool.execute({ pattern: 'needle' }, context), 'src/deep/c.ts:1: const needle = true;\nsrc/notes.md:1: needle in markdown');
    assert.equal(await grepTool.execute({ pattern: 'needle', include: '*.ts' }, context), 'src/deep/c.ts:1: const needle = true;');
    await assert.rejects(grepTool.execute({ pattern: '(' }, context), /grep: invalid regular expression/);
  });

  it('a catastrophically backtracking grep pattern is stopped by its time budget, not left to hang the engine', () => {
    const regex = new BoundedRegex('grep', '(a+)+b', 50);
    assert.deepEqual(regex.matchingLines(['ab', 'c', 'aab']), [0, 2]);
    assert.throws(() => regex.matchingLines(['a'.repeat(40) + 'c']), /grep: the pattern ran out of its time budget/);
  });

  it('shell runs in the working directory, caps output, reports non-zero exits as errors', async () => {
    assert.equal(await shellTool.execute({ command: 'pwd' }, context), `stdout:\n${fs.realpathSync(root)}\n`);
    await assert.rejects(shellTool.execute({ command: 'echo oops >&2; exit 4' }, context), /shell: exit 4\nstderr:\noops/);
    const long = await shellTool.execute({ command: 'head -c 500 /dev/zero | tr "\\0" a' }, context);
    assert.match(long, /^stdout:\na{32}\n\[… 436 bytes omitted …\]\na{32}\n\[output truncated to its first and last 32 bytes per stream\]$/);
  });

  it('globs: ** crosses directories, * does not', () => {
    assert.ok(globToRegExp('**/*.ts').test('a.ts'));
    assert.ok(globToRegExp('**/*.ts').test('x/y/a.ts'));
    assert.ok(!globToRegExp('*.ts').test('x/a.ts'));
    assert.ok(globToRegExp('a?.{js,ts}').test('ab.js'));
    assert.ok(!globToRegExp('a.ts').test('abts'));
  });
});

describe('retry timing', () => {
  const error = (retryAfter?: number) => new ProviderError('x', 'openai', 429, true, retryAfter);

  it('reads Retry-After seconds, HTTP dates and retry-after-ms', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '7' }), now), 7000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Sun, 29 Nov 2026 12:00:05 GMT' }), now), 5000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '7' }), now), 250);
    assert.equal(retryAfterMs(new Headers({}), now), undefined);
  });

  it('backs off exponentially with bounded jitter, capped, unless the server said when', () => {
    assert.equal(backoffMs(defaultRetryPolicy, 0, error(), () => 0.5), 1000);
    assert.equal(backoffMs(defaultRetryPolicy, 3, error(), () => 0.5), 8000);
    assert.equal(backoffMs(defaultRetryPolicy, 10, error(), () => 0.5), 30_000);
    assert.equal(backoffMs(defaultRetryPolicy, 0, error(), () => 0), 800);
    assert.equal(backoffMs(defaultRetryPolicy, 0, error(), () => 1), 1200);
    assert.equal(backoffMs(defaultRetryPolicy, 2, error(4500), () => 0.5), 4500);
  });
});
