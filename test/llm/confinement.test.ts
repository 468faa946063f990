import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { Workspace } from '../../engine/llm/tools/workspace';
import type { Rig } from './harness';
import { anthropic, gemini, openAiChat, startRig, toolResultsSent } from './harness';

for (const flavour of [openAiChat, anthropic, gemini]) {
  describe(`working-directory confinement over ${flavour.name}`, () => {
    let rig: Rig;
    afterEach(() => rig.close());

    it('refuses ../ escapes and symlinks that lead outside, with a clear tool error', async () => {
      rig = await startRig(flavour);
      const outside = path.dirname(rig.workDir);
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(rig.workDir, 'link.txt'));
      fs.symlinkSync(outside, path.join(rig.workDir, 'outdir'));
      fs.symlinkSync(path.join(outside, 'not-yet.txt'), path.join(rig.workDir, 'dangling.txt'));
      rig.server.script(
        flavour.turn({
          toolCalls: [
            { id: 'dotdot', name: 'write_file', arguments: { path: '../escaped.txt', content: 'x' } },
            { id: 'link', name: 'read_file', arguments: { path: 'link.txt' } },
            { id: 'dir', name: 'write_file', arguments: { path: 'outdir/escaped.txt', content: 'x' } },
            { id: 'dangling', name: 'write_file', arguments: { path: 'dangling.txt', content: 'x' } },
            { id: 'absolute', name: 'list_dir', arguments: { path: outside } },
            { id: 'grep', name: 'grep', arguments: { pattern: 'secret', path: '..' } },
          ],
        }),
        flavour.turn({ text: 'ok' }),
      );
      await rig.backend.run(rig.request());
      const results = toolResultsSent(rig.server.requests[1]!.body);
      assert.equal(results.length, 6);
      for (const result of results) {
        assert.match(result.content, /outside the working directory|dangling symbolic link/, result.id);
        assert.doesNotMatch(result.content, /top secret/);
      }
      assert.equal(fs.existsSync(path.join(outside, 'escaped.txt')), false);
      assert.equal(fs.existsSync(path.join(outside, 'not-yet.txt')), false);
    });
  });
}

describe('Workspace', () => {
  it('resolves paths inside, including through symlinks that stay inside', () => {
    const root = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'ws-'));
    try {
      fs.mkdirSync(path.join(root, 'a'));
      fs.symlinkSync(path.join(root, 'a'), path.join(root, 'alias'));
      const workspace = new Workspace(root);
      assert.equal(workspace.resolve('alias/new/file.txt'), path.join(root, 'a', 'new', 'file.txt'));
      assert.equal(workspace.resolve('.'), root);
      assert.equal(workspace.resolve('a/../a'), path.join(root, 'a'));
      assert.throws(() => workspace.resolve('a/../../x'), /outside the working directory/);
      assert.throws(() => workspace.resolve(''), /a path \(string\) is required/);
      assert.throws(() => workspace.resolve(3), /a path \(string\) is required/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
