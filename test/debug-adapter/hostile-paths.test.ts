// Breakpoints in a .dot that is a FIFO or a symlink to /dev/zero: the adapter answers, unverified,
// naming the problem, and keeps serving.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureTestBundle, sessionPool } from './harness';

const { start: session, stopAll } = sessionPool();

describe('debug adapter: hostile source paths', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('setBreakpoints on a FIFO or on a symlink to /dev/zero is answered with a reason, without hanging', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-dap-hostile-'));
    execFileSync('mkfifo', [path.join(dir, 'fifo.dot')]);
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero.dot'));
    const s = await session();
    await s.client.initializeRequest({ adapterID: 'attractor', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    for (const [name, kind] of [['fifo.dot', /a FIFO \(named pipe\), not a regular file/], ['zero.dot', /a character device, not a regular file/]] as const) {
      const response = await s.client.setBreakpointsRequest({ source: { path: path.join(dir, name) }, breakpoints: [{ line: 1 }] });
      const [breakpoint] = response.body.breakpoints;
      assert.equal(breakpoint?.verified, false);
      assert.match(breakpoint?.message ?? '', kind);
    }
  });
});
