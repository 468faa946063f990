import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ProviderError } from '../../engine/runtime/backend';
import type { Rig } from './harness';
import { anthropic, flavours, startRig } from './harness';

for (const flavour of flavours) {
  describe(`provider errors over ${flavour.name}`, () => {
    let rig: Rig;
    afterEach(() => rig.close());

    it('waits out a 429 for its Retry-After, then succeeds', async () => {
      rig = await startRig(flavour);
      rig.server.script(flavour.error(429, 'Rate limit reached, slow down', { 'retry-after': '3' }), flavour.turn({ text: 'recovered' }));
      const result = await rig.backend.run(rig.request());
      assert.equal(result.responseText, 'recovered');
      assert.deepEqual(rig.clock.sleeps, [3000]);
      assert.equal(rig.server.requests.length, 2);
      const retry = rig.sessionEvents(result.sessionId!).find((e) => e.data.provider_retry === 1);
      assert.equal(retry?.data.status, 429);
    });

    it('fails a 401 at once with the provider\'s own message, never retried', async () => {
      rig = await startRig(flavour);
      const message = flavour === anthropic ? 'invalid x-api-key' : 'Incorrect API key provided: sk-test.';
      rig.server.script(flavour.error(401, message));
      const error = await rig.backend.run(rig.request()).then(
        () => assert.fail('expected a ProviderError'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.status, 401);
      assert.equal(error.transient, false);
      assert.equal(error.message, `${flavour.provider} 401: ${message}`);
      assert.equal(rig.server.requests.length, 1);
      assert.deepEqual(rig.clock.sleeps, []);
    });

    it('backs off exponentially on 5xx and, once retries run out, throws a transient ProviderError for the node retry ladder', async () => {
      rig = await startRig(flavour, { retryPolicy: { maxRetries: 2, backoff: { initialDelayMs: 1000, factor: 2, maxDelayMs: 30_000, jitter: 0.2 }, maxRetryAfterMs: 120_000 } });
      rig.server.script(flavour.error(503, 'overloaded'), flavour.error(502, 'bad gateway'), flavour.error(500, 'still broken'));
      const error = await rig.backend.run(rig.request()).catch((e: unknown) => e);
      assert.ok(error instanceof ProviderError);
      assert.equal(error.transient, true);
      assert.equal(error.status, 500);
      assert.match(error.message, /still broken/);
      // random() is pinned at 0.5, so jitter is neutral: 1 s, then 2 s.
      assert.deepEqual(rig.clock.sleeps, [1000, 2000]);
      assert.equal(rig.server.requests.length, 3);
    });

    it('does not retry a 400', async () => {
      rig = await startRig(flavour);
      rig.server.script(flavour.error(400, 'Invalid schema for function'));
      const error = await rig.backend.run(rig.request()).catch((e: unknown) => e);
      assert.ok(error instanceof ProviderError);
      assert.equal(error.transient, false);
      assert.equal(rig.server.requests.length, 1);
    });
  });
}

describe('connection failures', () => {
  it('a refused connection is transient', async () => {
    const rig = await startRig(flavours[0]!, { retryPolicy: { maxRetries: 1, backoff: { initialDelayMs: 10, factor: 2, maxDelayMs: 10, jitter: 0.2 }, maxRetryAfterMs: 10 } });
    await rig.server.stop();
    const error = await rig.backend.run(rig.request()).catch((e: unknown) => e);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.transient, true);
    assert.equal(error.status, undefined);
    assert.deepEqual(rig.clock.sleeps, [10]);
  });
});
