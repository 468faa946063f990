import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { FailureBreaker } from '../../engine/llm/failure-breaker';
import type { Rig } from './harness';
import { openAiChat, startRig, toolResultsSent } from './harness';

describe('failure breaker', () => {
  it('counts only failures identical in tool, arguments and error', () => {
    const breaker = new FailureBreaker();
    assert.equal(breaker.recordFailure('read_file', { path: 'a' }, 'ENOENT').tripped, false);
    assert.equal(breaker.recordFailure('read_file', { path: 'b' }, 'ENOENT').tripped, false);
    assert.equal(breaker.recordFailure('read_file', { path: 'a' }, 'EACCES').tripped, false);
    assert.equal(breaker.recordFailure('list_dir', { path: 'a' }, 'ENOENT').tripped, false);
    assert.equal(breaker.recordFailure('read_file', { path: 'a' }, 'ENOENT').tripped, false);
    // Key order does not make arguments different.
    const third = breaker.recordFailure('read_file', JSON.parse('{"path":"a"}'), 'ENOENT');
    assert.equal(third.tripped, true);
    assert.equal(third.count, 3);
    assert.ok(third.text.startsWith('ENOENT\n\n[circuit breaker]'));
  });

  it('survives arguments that are not JSON-serialisable', () => {
    const breaker = new FailureBreaker();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (let i = 0; i < 2; i++) breaker.recordFailure('shell', cyclic, 'boom');
    assert.equal(breaker.recordFailure('shell', cyclic, 'boom').tripped, true);
    assert.equal(breaker.recordFailure('shell', { n: 10n }, 'boom').tripped, false);
  });

  describe('in a session', () => {
    let rig: Rig;
    afterEach(() => rig.close());

    it('trips on the third identical failing call, tells the model and keeps the error verbatim', async () => {
      rig = await startRig(openAiChat);
      const readMissing = { name: 'read_file', arguments: { path: 'missing.txt' } };
      rig.server.script(
        openAiChat.turn({ toolCalls: [{ id: 'c1', ...readMissing }] }),
        openAiChat.turn({ toolCalls: [{ id: 'c2', ...readMissing }] }),
        openAiChat.turn({ toolCalls: [{ id: 'c3', ...readMissing }] }),
        openAiChat.turn({ text: 'giving up on that file' }),
      );
      const result = await rig.backend.run(rig.request());
      const results = toolResultsSent(rig.server.requests[3]!.body);
      assert.deepEqual(results.map((r) => r.id), ['c1', 'c2', 'c3']);
      const error = 'read_file missing.txt: no such file or directory';
      assert.equal(results[0]!.content, error);
      assert.equal(results[1]!.content, error);
      assert.ok(results[2]!.content.startsWith(`${error}\n\n[circuit breaker] This exact read_file call has now failed 3 times`));
      const tripped = rig.sessionEvents(result.sessionId!).filter((e) => e.event === 'tool:post' && e.data.breaker);
      assert.deepEqual(tripped.map((e) => e.data.call_id), ['c3']);
    });
  });
});
