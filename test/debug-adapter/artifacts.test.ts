import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureTestBundle, launch, lineOf, scopeValues, scriptedArgs, sessionPool, workspaceWith } from './harness';

const { start: session, stopAll } = sessionPool();

describe('debug adapter: artifacts in the Variables view', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('a context value stored as an artifact shows its id, size, file and the start of the value', async () => {
    const dir = workspaceWith({
      'pipeline.dot': `digraph g {
  start [shape=Mdiamond]
  big [shape=parallelogram, parse_json=true, tool_command="printf '{\\"report\\": \\"%s\\"}' \\"$(head -c 110000 /dev/zero | tr '\\\\0' y)\\""]
  after [shape=parallelogram, tool_command="true"]
  done [shape=Msquare]
  start -> big -> after -> done
}
`,
      'script.json': '{}',
    });
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'after [shape') }] } });
    await s.events.next('stopped');
    const { values } = await scopeValues(s, 'Context');
    assert.match(values.report ?? '', /^artifact report-[0-9a-f]{16} \(107 KiB, artifacts\/report-[0-9a-f]{16}\.json\): "y{119}…$/);
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });
});
