// Property: whatever a value holds, every quoting context hands it to real bash verbatim and
// nothing in it runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseDot } from '../../../engine/parse/dot-parser';
import type { Graph } from '../../../engine/model/graph';
import { RunContext } from '../../../engine/runtime/context';
import { expandCommand } from '../../../engine/runtime/expand';
import { runShellCommand } from '../../../engine/runtime/process';

const graph = parseDot('digraph t { start [shape=Mdiamond] }').graph as Graph;

// Each context prints the value between markers: unquoted, "…", '…', $'…', ${context.p}, a heredoc, a here-string.
const command = `printf '<%s>' $p "$p" 'x$p' $'$p' "\${context.p}"; cat <<EOF
<$p>
EOF
cat <<< "<$p>"`;

const fragments = fc.constantFrom('$(touch pwned)', '`touch pwned`', "'", '"', '\\', '$', '${x}', '$((1+1))', 'a[$(touch pwned)]', '\n', 'EOF', ';', '&', '|', '*', '~', '!', '#', ' ', '\t', 'é', '\u2028', 'plain');
const values = fc.array(fc.oneof(fragments, fc.string({ maxLength: 4 })), { maxLength: 12 }).map((parts) => parts.join('').replaceAll('\0', ''));

describe('expandCommand against real bash', () => {
  it('any value arrives verbatim in every quoting context, and nothing in it runs', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-property-'));
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        const expansion = expandCommand(command, graph, new RunContext({ p: value }), ['p']);
        assert.ok(expansion.ok);
        const { command: rewritten, env } = expansion.value;
        const result = await runShellCommand(rewritten, { cwd, env: { PATH: process.env.PATH, ...env }, outputCapBytes: 1 << 20, signal: new AbortController().signal });
        assert.equal(result.exitCode, 0, result.stderr);
        assert.equal(result.stdout, `<${value}><${value}><x${value}><${value}><${value}><${value}>\n<${value}>\n`);
        assert.deepEqual(fs.readdirSync(cwd), []);
      }),
      { numRuns: 150 },
    );
  });
});
