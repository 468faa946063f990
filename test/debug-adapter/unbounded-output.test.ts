// A tool that prints 50 MB: the Debug Console gets a bounded slice and a summary line, and the
// adapter's memory stays far below the output's size.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { adapterProcess, ensureTestBundle, launch, scriptedArgs, sessionPool, traceOf, workspaceWith } from './harness';

const { start: session, stopAll } = sessionPool();
const PRINTED_BYTES = 50 * 1024 * 1024;

/** Peak resident memory of a process (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

describe('debug adapter: unbounded tool output', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('a tool printing 50 MB reaches the console as a bounded slice plus a summary, and its last line still routes', async () => {
    const dir = workspaceWith({
      'pipeline.dot': `digraph flood {
  start [shape=Mdiamond]
  gate [shape=parallelogram, tool_command="head -c ${PRINTED_BYTES} /dev/zero | tr '\\\\0' x; echo; echo gate_pass"]
  done [shape=Msquare]
  failed [shape=parallelogram, tool_command="exit 1"]
  start -> gate
  gate -> done [condition="context.tool.last_line=gate_pass"]
  gate -> failed
  failed -> done
}
`,
      'script.json': '{}',
    });
    const s = await session({ ownProcess: true });
    await launch(s, scriptedArgs(dir));
    await s.events.next('terminated', 240_000);
    const adapterPid = adapterProcess(s).pid!;
    const peak = peakRss(adapterPid);
    const output = s.events.bodies<DebugProtocol.OutputEvent['body']>('output');
    const stdout = output.filter((o) => o.category === 'stdout');
    const shownBytes = stdout.reduce((sum, o) => sum + Buffer.byteLength(o.output), 0);
    assert.ok(shownBytes < 2 * 1024 * 1024, `the console got ${shownBytes} bytes of stdout`);
    assert.ok(
      stdout.some((o) => /\[stdout: 49\.0 MiB more not shown live \(limit 1 MiB\); stdout\.txt in .* keeps the first and last 4 MiB\]/.test(o.output)),
      'a summary line says how much was withheld and where the capture is',
    );
    assert.deepEqual(
      traceOf(path.join(dir, '.run')).map((r) => r.node_id),
      ['start', 'gate', 'done'],
    );
    // Measured: ~350 MiB whether the tool prints 10, 50 or 300 MB (the 8 MiB capture, held as
    // tool.output in the context, checkpoints and time-travel snapshots, is what costs; 57 MiB idle).
    assert.ok(peak < 512 * 1024 * 1024, `the adapter peaked at ${Math.round(peak / 1024 / 1024)} MiB`);
  });
});
