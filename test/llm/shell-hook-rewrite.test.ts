import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CliRig, cliChat } from './cli-rig';
import { toolResultsSent } from './harness';

/**
 * A pre hook (a real process) that jails every write into `jail/` and points every read at one
 * missing file; a post hook that appends what it was given to post.jsonl.
 */
const preHook = `
const call = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
if (call.tool === 'write_file') process.stdout.write(JSON.stringify({ arguments: { ...call.arguments, path: 'jail/' + call.arguments.path } }));
else if (call.tool === 'read_file') process.stdout.write(JSON.stringify({ arguments: { path: 'missing.txt' } }));
else process.stdout.write('no opinion');
`;
const postHook = `
const call = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
require('node:fs').appendFileSync('post.jsonl', JSON.stringify({ tool: call.tool, arguments: call.arguments }) + '\\n');
`;

describe('a DOT tool_hooks.pre command rewrites the call', () => {
  let rig: CliRig;
  beforeEach(async () => {
    rig = await new CliRig().start();
  });
  afterEach(() => rig.stop());

  it('runs the rewritten arguments; the post hook and the failure breaker see what actually ran', async () => {
    const pre = path.join(rig.dir, 'pre.cjs');
    const post = path.join(rig.dir, 'post.cjs');
    fs.writeFileSync(pre, preHook);
    fs.writeFileSync(post, postHook);
    rig.server.script(
      cliChat.stream({ toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'out.txt', content: 'hello' } }] }),
      // Three different reads the hook turns into one identical failing call: the breaker counts those.
      cliChat.stream({ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }] }),
      cliChat.stream({ toolCalls: [{ id: 'r2', name: 'read_file', arguments: { path: 'b.txt' } }] }),
      cliChat.stream({ toolCalls: [{ id: 'r3', name: 'read_file', arguments: { path: 'c.txt' } }] }),
      cliChat.stream({ toolCalls: [{ id: 'done', name: 'report_outcome', arguments: { status: 'success' } }] }),
    );
    const result = await rig.run(
      `digraph hooks {
        graph [llm_model="gpt-4o", tool_hooks.pre="node ${pre}", tool_hooks.post="node ${post}"]
        start [shape=Mdiamond]
        done [shape=Msquare]
        work [prompt="Write out.txt."]
        start -> work -> done
      }`,
      cliChat.env(rig.baseUrl),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.readFileSync(path.join(rig.work, 'jail', 'out.txt'), 'utf8'), 'hello');
    assert.equal(fs.existsSync(path.join(rig.work, 'out.txt')), false, 'the model\'s own path was not written');
    const posted = fs
      .readFileSync(path.join(rig.work, 'post.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> });
    assert.deepEqual(posted.slice(0, 4).map((p) => p.arguments.path), ['jail/out.txt', 'missing.txt', 'missing.txt', 'missing.txt']);
    const third = toolResultsSent(rig.server.requests[4]!.body).find((r) => r.id === 'r3');
    assert.match(third?.content ?? '', /\[circuit breaker\] This exact read_file call has now failed 3 times/);
  });
});
