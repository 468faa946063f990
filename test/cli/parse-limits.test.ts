// Pipelines at and past the parser's limits, and a byte-order mark, through the real CLI process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';

let cli = '';

interface JsonDiagnostic {
  readonly rule: string;
  readonly severity: string;
  readonly message: string;
  readonly range?: { readonly start: { readonly line: number; readonly column: number } };
}

function check(command: 'lint' | 'validate', text: string): { status: number | null; stderr: string; diagnostics: JsonDiagnostic[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-limits-'));
  fs.writeFileSync(path.join(dir, 'p.dot'), text);
  const run = spawnSync(process.execPath, [cli, command, '--json', 'p.dot'], { cwd: dir, encoding: 'utf8', timeout: 90_000, maxBuffer: 512 * 1024 * 1024 });
  assert.equal(run.signal, null, `killed: ${run.stderr}`);
  assert.ok(run.stdout.trim(), `no JSON on stdout (exit ${run.status}): ${run.stderr}`);
  return { status: run.status, stderr: run.stderr, diagnostics: (JSON.parse(run.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics };
}

const chain = (steps: number) => `digraph c {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  ${['start', ...Array.from({ length: steps - 1 }, (_, i) => `n${i}`), 'done'].join(' -> ')}\n}\n`;
const nested = (depth: number) => `digraph c {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n  ${'subgraph { '.repeat(depth)}x${' }'.repeat(depth)}\n}\n`;

describe('parser limits and encodings (CLI process)', () => {
  before(() => {
    cli = bundledCli();
  });

  it('an 8,000-step edge chain is "pipeline too large" with its length, the limit and a location, not "Unexpected parse error"', () => {
    const result = check('validate', chain(8000));
    assert.equal(result.status, 1);
    assert.equal(result.diagnostics.length, 1);
    const [diagnostic] = result.diagnostics;
    assert.equal(diagnostic?.message, 'pipeline too large: an edge chain of 8000 steps (limit 2000); write it as several edge statements');
    assert.equal(diagnostic?.range?.start.line, 4);
  });

  it('5,000 nested subgraphs are "pipeline too large" with the depth and the limit, at the first brace past it', () => {
    const result = check('lint', nested(5000));
    assert.deepEqual(
      result.diagnostics.map((d) => [d.rule, d.message, d.range?.start.line, d.range?.start.column]),
      [['syntax', 'pipeline too large: subgraphs nested 5000 deep (limit 200)', 5, 3 + 'subgraph { '.length * 200 + 'subgraph '.length]],
    );
  });

  it('at the limits the pipeline parses: a 2,000-step chain and 200 nested subgraphs', () => {
    for (const text of [chain(2000), nested(200)]) {
      const result = check('validate', text);
      assert.ok(!result.diagnostics.some((d) => d.rule === 'syntax'), JSON.stringify(result.diagnostics.slice(0, 2)));
    }
  });

  it('a UTF-8 byte-order mark at the start of the file is accepted, and positions are unchanged', () => {
    const result = check('lint', '\uFEFFdigraph b {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n  start -> ghost\n}\n');
    assert.ok(!result.diagnostics.some((d) => d.rule === 'syntax'), JSON.stringify(result.diagnostics));
    const ghost = result.diagnostics.find((d) => d.message.includes('`ghost`'));
    assert.deepEqual(ghost?.range?.start, { line: 5, column: 12 });
  });

  it('a rule yielding 130,000 diagnostics does not overflow the stack; --json still prints them all', () => {
    const text = `digraph big {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done\n${Array.from({ length: 130_000 }, (_, i) => `n${i}`).join('\n')}\n}\n`;
    const result = check('validate', text);
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.diagnostics.filter((d) => d.rule === 'reachability').length, 130_000);
  });
});
