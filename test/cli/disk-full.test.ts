// A run whose run directory fills its disk, on a real small file system (a tmpfs mounted for the
// test, which needs root): a plain failure naming the file, nothing half-written left, and a resume
// that continues from the journal once there is room.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';

const pipeline = String.raw`digraph d {
  start [shape=Mdiamond]
  done [shape=Msquare]
  a [shape=parallelogram, tool_command="echo a >> log.txt"]
  big [shape=parallelogram, tool_command="head -c 400000 /dev/zero | tr '\\0' x; echo"]
  b [shape=parallelogram, tool_command="echo b >> log.txt"]
  start -> a -> big -> b -> done
}`;

/** A tmpfs of `size` at a fresh directory, or why none can be mounted here. */
function smallDisk(size: string): { dir: string } | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'mounting a small tmpfs needs root' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  return mounted.status === 0 ? { dir } : { skip: `mount -t tmpfs failed: ${mounted.stderr.trim() || mounted.error?.message}` };
}

function tempFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((name) => name.endsWith('.tmp'));
}

describe('a full disk under the run directory (CLI process, a real small file system)', () => {
  it('fails with a plain message naming the file and ENOSPC, leaves no temp file, and resume continues from the journal once there is room', (t) => {
    const disk = smallDisk('600k');
    if ('skip' in disk) {
      console.log(`SKIP disk-full test: ${disk.skip}`);
      t.skip(disk.skip);
      return;
    }
    try {
      const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-full-cwd-'));
      fs.writeFileSync(path.join(cwd, 'p.dot'), pipeline);
      const logsRoot = path.join(disk.dir, 'run');
      const full = attractor(cwd, ['run', 'p.dot', '--logs-root', logsRoot, '--json']);
      assert.equal(full.status, 1, full.stderr);
      const result = JSON.parse(full.stdout.trim().split('\n').at(-1) ?? '{}') as { status: string; failure_reason: string };
      assert.equal(result.status, 'fail');
      assert.match(result.failure_reason, /^no space left on the disk of the run directory: writing \/\S+ failed \(ENOSPC\); the run stopped at its last finished node: free some space, then `attractor resume` continues it$/);
      assert.doesNotMatch(result.failure_reason, /\n\s+at /, 'no stack trace');
      assert.deepEqual(tempFiles(logsRoot), []);

      const grown = spawnSync('mount', ['-o', 'remount,size=32m', disk.dir], { encoding: 'utf8' });
      assert.equal(grown.status, 0, grown.stderr);
      const resumed = attractor(cwd, ['resume', logsRoot]);
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.equal(fs.readFileSync(path.join(cwd, 'log.txt'), 'utf8'), 'a\nb\n', 'a finished node does not run again');
    } finally {
      spawnSync('umount', [disk.dir]);
    }
  });
});
