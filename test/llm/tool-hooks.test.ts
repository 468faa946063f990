import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { interpretPreHookResult } from '../../engine/llm/tool-hooks';
import type { Rig } from './harness';
import { anthropic, gemini, openAiChat, startRig, toolResultsSent } from './harness';

describe('tool:pre results', () => {
  const call = { callId: 'c', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } };

  it('adopts a real object with different content', () => {
    assert.deepEqual(interpretPreHookResult(call, { arguments: { path: 'b.txt', content: 'x' } }), { kind: 'proceed', arguments: { path: 'b.txt', content: 'x' }, rewritten: true });
  });

  it('treats a new object with equal content (any key order) as no rewrite', () => {
    assert.deepEqual(interpretPreHookResult(call, { arguments: { content: 'x', path: 'a.txt' } }), { kind: 'proceed', arguments: call.arguments, rewritten: false });
  });

  for (const [label, result] of [
    ['undefined', undefined],
    ['null', null],
    ['an empty object', {}],
    ['an object without arguments', { action: 'modify' }],
    ['a string', 'rewrite please'],
    ['an array of arguments', { arguments: ['b.txt'] }],
    ['a class instance', { arguments: new Map([['path', 'b.txt']]) }],
  ] as const) {
    it(`leaves the arguments alone for ${label}`, () => {
      assert.deepEqual(interpretPreHookResult(call, result), { kind: 'proceed', arguments: call.arguments, rewritten: false });
    });
  }

  it('denies with a reason', () => {
    assert.deepEqual(interpretPreHookResult(call, { deny: 'read-only node' }), { kind: 'deny', reason: 'read-only node' });
  });
});

for (const flavour of [openAiChat, anthropic, gemini]) {
  describe(`hooks around tool calls over ${flavour.name}`, () => {
    let rig: Rig;
    afterEach(() => rig.close());

    it('a tool:pre rewrite changes what the tool does, and is recorded', async () => {
      rig = await startRig(flavour, {
        hooks: { pre: (call) => (call.name === 'write_file' ? { arguments: { ...call.arguments, path: `jail/${String(call.arguments.path)}` } } : undefined) },
      });
      rig.server.script(flavour.turn({ toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'x.txt', content: 'data' } }] }), flavour.turn({ text: 'done' }));
      const result = await rig.backend.run(rig.request());
      assert.equal(fs.readFileSync(path.join(rig.workDir, 'jail/x.txt'), 'utf8'), 'data');
      assert.equal(fs.existsSync(path.join(rig.workDir, 'x.txt')), false);
      const pre = rig.sessionEvents(result.sessionId!).find((e) => e.event === 'tool:pre')!;
      assert.deepEqual(pre.data.arguments, { path: 'x.txt', content: 'data' });
      assert.deepEqual(pre.data.rewritten_arguments, { path: 'jail/x.txt', content: 'data' });
    });

    it('a tool:pre denial skips the call and tells the model; tool:post may rewrite a result', async () => {
      rig = await startRig(flavour, {
        hooks: {
          pre: (call) => (call.name === 'shell' ? { deny: 'no shell on this node' } : undefined),
          post: (call, output) => (call.name === 'list_dir' ? { content: `[audited]\n${output.content}` } : undefined),
        },
      });
      fs.writeFileSync(path.join(rig.workDir, 'seen.txt'), '');
      rig.server.script(
        flavour.turn({ toolCalls: [{ id: 's', name: 'shell', arguments: { command: 'touch touched' } }, { id: 'l', name: 'list_dir', arguments: {} }] }),
        flavour.turn({ text: 'ok' }),
      );
      await rig.backend.run(rig.request());
      assert.equal(fs.existsSync(path.join(rig.workDir, 'touched')), false);
      const results = toolResultsSent(rig.server.requests[1]!.body);
      assert.equal(results[0]!.content, 'shell: denied by tool:pre hook: no shell on this node');
      assert.equal(results[1]!.content, '[audited]\nseen.txt');
    });
  });
}

describe('tool_hooks shell commands (§9.7)', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('a non-zero pre hook skips the call (recorded); the post hook gets metadata in env and stdin JSON', async () => {
    rig = await startRig(openAiChat);
    const log = path.join(path.dirname(rig.workDir), 'post.log');
    rig.server.script(
      openAiChat.turn({
        toolCalls: [
          { id: 'blocked', name: 'write_file', arguments: { path: 'secret.txt', content: 'no' } },
          { id: 'allowed', name: 'write_file', arguments: { path: 'ok.txt', content: 'yes' } },
        ],
      }),
      openAiChat.turn({ text: 'done' }),
    );
    const result = await rig.backend.run(
      rig.request({
        toolHooks: {
          pre: `grep -q secret && { echo "secrets are off limits" >&2; exit 3; } || exit 0`,
          // One file per call: the two calls run in parallel, and appends from two shells interleave.
          post: `{ echo "$ATTRACTOR_HOOK $ATTRACTOR_TOOL_NAME $ATTRACTOR_TOOL_CALL_ID $ATTRACTOR_NODE_ID $ATTRACTOR_TOOL_IS_ERROR"; cat; echo; } > '${log}'.$ATTRACTOR_TOOL_CALL_ID`,
        },
      }),
    );
    assert.equal(fs.existsSync(path.join(rig.workDir, 'secret.txt')), false);
    assert.equal(fs.readFileSync(path.join(rig.workDir, 'ok.txt'), 'utf8'), 'yes');
    const results = toolResultsSent(rig.server.requests[1]!.body);
    assert.equal(results[0]!.content, 'write_file: skipped by tool_hooks.pre (exit 3): secrets are off limits');
    const blocked = rig.sessionEvents(result.sessionId!).find((e) => e.event === 'tool:pre' && e.data.call_id === 'blocked')!;
    assert.equal(blocked.data.skipped, true);
    assert.deepEqual(blocked.data.shell_pre_hook, { exit_code: 3, output: 'secrets are off limits' });
    const entries = ['allowed', 'blocked'].map((id) => {
      const [env, payload] = fs.readFileSync(`${log}.${id}`, 'utf8').trim().split('\n');
      return { env: env!, payload: JSON.parse(payload!) as Record<string, unknown> };
    });
    assert.deepEqual(entries.map((e) => e.env), ['post write_file allowed node false', 'post write_file blocked node true']);
    assert.equal(entries[1]!.payload.tool, 'write_file');
    assert.deepEqual(entries[1]!.payload.arguments, { path: 'secret.txt', content: 'no' });
    assert.equal(entries[1]!.payload.is_error, true);
    assert.match(String(entries[1]!.payload.result), /skipped by tool_hooks.pre/);
  });
});
