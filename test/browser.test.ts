// A browser that cannot start fails its callers at once, with its path and the reason, and leaves
// nothing behind that would keep a test process alive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { launchChromium } from './browser';
import { startHarness } from './webview/harness';

const missing = '/nonexistent/chromium';

function listeningServers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'TCPServerWrap').length;
}

test('a Chromium that cannot start is reported with its path and the reason, without waiting', async () => {
  process.env.CHROMIUM = missing;
  try {
    const started = Date.now();
    await assert.rejects(launchChromium(), (error: Error) => error.message.includes(missing) && /did not start/.test(error.message));
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  } finally {
    delete process.env.CHROMIUM;
  }
});

test('the webview harness closes its server when the browser cannot start', async () => {
  process.env.CHROMIUM = missing;
  try {
    const before = listeningServers();
    await assert.rejects(startHarness(), new RegExp(missing));
    // A closed server's handle goes on the next turn of the event loop.
    await setTimeout(100);
    assert.equal(listeningServers(), before, 'a server left listening keeps the test process alive');
  } finally {
    delete process.env.CHROMIUM;
  }
});
