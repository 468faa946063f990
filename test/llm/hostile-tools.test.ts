// The agent's file tools under a hostile model: a backtracking glob and a hard link out of the cwd.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ToolContext } from '../../engine/llm/tools/agent-tool';
import { editFileTool, readFileTool, writeFileTool } from '../../engine/llm/tools/file-tools';
import { globTool, grepTool } from '../../engine/llm/tools/search-tools';
import { Workspace } from '../../engine/llm/tools/workspace';

describe('agent tools against hostile input', () => {
  let base: string;
  let root: string;
  let outside: string;
  let context: ToolContext;
  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-tools-'));
    root = path.join(base, 'cwd');
    fs.mkdirSync(root);
    outside = path.join(base, 'secret.txt');
    fs.writeFileSync(outside, 'outside secret\n');
    context = { workspace: new Workspace(root), signal: new AbortController().signal, env: { PATH: process.env.PATH }, shellTimeoutMs: 10_000, outputCapBytes: 1024 };
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  it('glob "*a*a*a*a*b" against a long name is stopped by its time budget instead of freezing the event loop', async () => {
    fs.writeFileSync(path.join(root, 'a'.repeat(200)), '');
    let longestStallMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestStallMs = Math.max(longestStallMs, now - last);
      last = now;
    }, 10);
    const started = performance.now();
    try {
      await assert.rejects(globTool.execute({ pattern: '*a*a*a*a*b' }, context), /glob: the pattern ran out of its time budget/);
      await assert.rejects(grepTool.execute({ pattern: 'x', include: '*a*a*a*a*b' }, context), /grep include: the pattern ran out of its time budget/);
    } finally {
      clearInterval(ticker);
    }
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 8_000, `took ${Math.round(elapsed)} ms`);
    assert.ok(longestStallMs < 3_000, `the event loop stalled for ${Math.round(longestStallMs)} ms`);
    assert.equal(await globTool.execute({ pattern: 'a*' }, context), 'a'.repeat(200));
  });

  it('a hard link inside the cwd to a file outside it can be neither read, searched, edited nor written', async () => {
    fs.linkSync(outside, path.join(root, 'alias.txt'));
    await assert.rejects(readFileTool.execute({ path: 'alias.txt' }, context), /read_file alias\.txt: the file has 2 hard links/);
    assert.equal(await grepTool.execute({ pattern: 'secret' }, context), 'no matches');
    await assert.rejects(editFileTool.execute({ path: 'alias.txt', old_string: 'outside', new_string: 'pwned' }, context), /edit_file alias\.txt: the file has 2 hard links/);
    await assert.rejects(writeFileTool.execute({ path: 'alias.txt', content: 'pwned\n' }, context), /write_file alias\.txt: the file has 2 hard links/);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'outside secret\n');
  });

  it('a FIFO inside the cwd is refused by read_file instead of hanging it, and ordinary files still work', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    await assert.rejects(readFileTool.execute({ path: 'pipe' }, context), /read_file pipe: not a regular file/);
    assert.match(await writeFileTool.execute({ path: 'notes/new.txt', content: 'hello\n' }, context), /wrote 6 bytes/);
    assert.match(await editFileTool.execute({ path: 'notes/new.txt', old_string: 'hello', new_string: 'bye' }, context), /replaced 1/);
    assert.equal(await readFileTool.execute({ path: 'notes/new.txt' }, context), 'bye\n');
  });
});
