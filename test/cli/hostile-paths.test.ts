// Paths a pipeline names are input: /dev/zero, a FIFO or a huge file end in a diagnostic naming
// the file, quickly, through the real CLI process.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';

let cli = '';

function attractor(cwd: string, ...args: string[]) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
}

function workspace(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-hostile-'));
}

const withSchema = (schema: string) => `digraph s {
  start [shape=Mdiamond]
  ask [prompt="Answer.", response_schema="${schema}"]
  done [shape=Msquare]
  start -> ask -> done
}
`;

interface JsonDiagnostic {
  readonly rule: string;
  readonly message: string;
  readonly range?: unknown;
}

function lintJson(cwd: string, file: string): { status: number | null; diagnostics: JsonDiagnostic[]; ms: number } {
  const run = attractor(cwd, 'lint', '--json', file);
  assert.equal(run.signal, null, `lint was killed (${run.signal}): it hung or ran away; stderr: ${run.stderr}`);
  return { status: run.status, diagnostics: (JSON.parse(run.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics, ms: run.ms };
}

describe('hostile paths (CLI process)', () => {
  before(() => {
    cli = bundledCli();
  });

  it('response_schema="/dev/zero" is refused as not a regular file, fast, with the location', () => {
    const dir = workspace();
    fs.writeFileSync(path.join(dir, 'p.dot'), withSchema('/dev/zero'));
    const lint = lintJson(dir, 'p.dot');
    assert.equal(lint.status, 1);
    const schema = lint.diagnostics.find((d) => d.rule === 'response_schema');
    assert.ok(schema, JSON.stringify(lint.diagnostics));
    assert.match(schema.message, /\/dev\/zero: it is a character device, not a regular file/);
    assert.ok(schema.range, 'the diagnostic points at the attribute');
    assert.ok(lint.ms < 10_000, `took ${lint.ms} ms`);
  });

  it('a FIFO as response_schema or as the pipeline itself does not hang lint', () => {
    const dir = workspace();
    execFileSync('mkfifo', [path.join(dir, 'schema.json'), path.join(dir, 'fifo.dot')]);
    fs.writeFileSync(path.join(dir, 'p.dot'), withSchema('schema.json'));
    const schema = lintJson(dir, 'p.dot');
    assert.match(schema.diagnostics.find((d) => d.rule === 'response_schema')?.message ?? '', /schema\.json: it is a FIFO \(named pipe\), not a regular file/);
    const pipeline = lintJson(dir, 'fifo.dot');
    assert.equal(pipeline.status, 1);
    assert.match(pipeline.diagnostics[0]?.message ?? '', /fifo\.dot: it is a FIFO \(named pipe\), not a regular file/);
  });

  it('run and run --serve refuse a FIFO as the pipeline with the reason instead of hanging', () => {
    const dir = workspace();
    execFileSync('mkfifo', [path.join(dir, 'fifo.dot')]);
    for (const args of [['run', 'fifo.dot'], ['run', 'fifo.dot', '--serve', '0']]) {
      const result = attractor(dir, ...args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /fifo\.dot: it is a FIFO \(named pipe\), not a regular file/, args.join(' '));
    }
  });

  it('a schema file over the cap is refused with its size and the cap, and a symlink to a device is followed and refused', () => {
    const dir = workspace();
    fs.writeFileSync(path.join(dir, 'big.json'), `{"description": "${'x'.repeat(2 * 1024 * 1024)}"}`);
    fs.symlinkSync('/dev/zero', path.join(dir, 'link.json'));
    fs.writeFileSync(path.join(dir, 'big.dot'), withSchema('big.json'));
    fs.writeFileSync(path.join(dir, 'link.dot'), withSchema('link.json'));
    assert.match(lintJson(dir, 'big.dot').diagnostics.find((d) => d.rule === 'response_schema')?.message ?? '', /big\.json is 2\.0 MiB, over the 1 MiB limit/);
    assert.match(lintJson(dir, 'link.dot').diagnostics.find((d) => d.rule === 'response_schema')?.message ?? '', /link\.json: it is a character device/);
  });

  it('a dot_file naming /dev/zero fails the sub-pipeline node with a clear reason instead of eating memory', () => {
    const dir = workspace();
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph p {
  start [shape=Mdiamond]
  child [shape=folder, dot_file="/dev/zero"]
  done [shape=Msquare]
  start -> child -> done
}
`,
    );
    const run = attractor(dir, 'run', 'p.dot', '--logs-root', path.join(dir, 'logs'));
    assert.equal(run.signal, null, run.stderr);
    assert.notEqual(run.status, 0);
    assert.match(run.stdout + run.stderr, /\/dev\/zero: it is a character device, not a regular file/);
  });
});
