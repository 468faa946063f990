import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';

const root = path.resolve(import.meta.dirname, '../..');
let cli = '';
const casesDir = path.resolve(root, '../shared/conformance/cases');

interface JsonDiagnostic {
  rule: string;
  code?: string;
  severity: string;
  message: string;
  node_id?: string;
  range?: { start: { line: number; column: number } };
}

function attractor(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function tempPipeline(text: string, name = 'pipeline.dot'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-lint-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const clean = `digraph ok {
  start [shape=Mdiamond]
  work [prompt="Do it.", feedback_from=gate]
  gate [shape=parallelogram, tool_command="make test > out.txt 2>&1 && echo gate_pass || echo gate_fail"]
  done [shape=Msquare]
  start -> work -> gate
  gate -> done [condition="context.tool.last_line=gate_pass"]
  gate -> work [condition="context.tool.last_line=gate_fail", loop_restart=true]
}
`;

describe('attractor lint (CLI process)', () => {
  before(() => {
    cli = bundledCli();
  });

  const lintCases = fs.existsSync(casesDir) ? fs.readdirSync(casesDir).filter((name) => name.startsWith('lint-')) : [];
  it('finds the conformance lint cases', () => assert.ok(lintCases.length >= 6, `found ${lintCases.length}`));

  for (const name of lintCases) {
    it(`conformance ${name}`, () => {
      const work = fs.mkdtempSync(path.join(os.tmpdir(), `attractor-${name}-`));
      fs.cpSync(path.join(casesDir, name), work, { recursive: true });
      const spec = JSON.parse(fs.readFileSync(path.join(work, 'case.json'), 'utf8')) as {
        expect: { lint_contains?: { rule: string; severity?: string; node_id?: string }[]; lint_absent?: string[]; exit_code?: number };
      };
      const { status, stdout } = attractor('lint', path.join(work, 'pipeline.dot'), '--json');
      const lastLine = stdout.trim().split('\n').pop() ?? '';
      const { diagnostics } = JSON.parse(lastLine) as { diagnostics: JsonDiagnostic[] };
      for (const want of spec.expect.lint_contains ?? []) {
        const found = diagnostics.some(
          (d) => (d.rule === want.rule || d.code === want.rule) && (want.severity === undefined || d.severity === want.severity) && (want.node_id === undefined || d.node_id === want.node_id),
        );
        assert.ok(found, `${name}: missing ${JSON.stringify(want)} in ${lastLine}`);
      }
      for (const absent of spec.expect.lint_absent ?? []) {
        assert.deepEqual(diagnostics.filter((d) => d.rule === absent || d.code === absent), [], `${name}: ${absent} must be absent`);
      }
      const expectedExit = spec.expect.exit_code ?? (diagnostics.some((d) => d.severity === 'error') ? 1 : 0);
      assert.equal(status, expectedExit);
    });
  }

  it('exits 0 on a clean pipeline, 1 on errors, and with --strict 1 on warnings', () => {
    const ok = tempPipeline(clean);
    assert.equal(attractor('lint', ok).status, 0);
    assert.equal(attractor('lint', ok, '--strict').status, 0);

    const warned = tempPipeline(clean.replace(', feedback_from=gate', ''));
    assert.equal(attractor('lint', warned).status, 0);
    assert.equal(attractor('lint', warned, '--strict').status, 1);

    const broken = tempPipeline(clean.replace('outcome', 'x').replace('context.tool.last_line=gate_pass', 'outcome>3'));
    assert.equal(attractor('lint', broken).status, 1);
    assert.equal(attractor('validate', broken).status, 1);
    assert.equal(attractor('validate', warned).status, 0);
  });

  it('prints compiler-style lines: file:line:col severity RULE message', () => {
    const file = tempPipeline(clean.replace('prompt="Do it.", feedback_from=gate', 'promt="Do it.", feedback_from=gate'));
    const { stdout, stderr } = attractor('lint', file);
    const lines = stdout.trim().split('\n');
    assert.ok(lines.includes(`${file}:3:9 warning unknown_attribute Unknown node attribute \`promt\`: did you mean \`prompt\`?`), stdout);
    for (const line of lines) assert.match(line, /^\S+:\d+:\d+ (error|warning|info) (TOPO-\d{3} )?[A-Za-z0-9_-]+ \S/);
    assert.match(stderr, /1 file\(s\): 0 error\(s\), 2 warning\(s\)/);
  });

  it('--json carries rule, code, severity, node, one-based range and the fix', () => {
    const file = tempPipeline(clean.replace('make test > out.txt 2>&1', 'make test | tail -3'));
    const { stdout } = attractor('lint', file, '--json');
    const { diagnostics } = JSON.parse(stdout) as { diagnostics: (JsonDiagnostic & { fix?: { edits: { start: number; end: number; text: string }[] } })[] };
    const cmd = diagnostics.find((d) => d.rule === 'CMD-001');
    assert.ok(cmd);
    assert.equal(cmd.code, 'CMD-001');
    assert.equal(cmd.node_id, 'gate');
    assert.deepEqual(cmd.range?.start, { line: 4, column: 53 });
    assert.deepEqual(cmd.fix?.edits.map((e) => e.text), [' > gate_output.txt 2>&1']);
  });

  it('lints several files at once and names each diagnostic\'s file in JSON', () => {
    const a = tempPipeline(clean);
    const b = tempPipeline('digraph nostart {\n  done [shape=Msquare]\n}\n');
    const { status, stdout } = attractor('lint', a, b, '--json');
    assert.equal(status, 1);
    const { diagnostics } = JSON.parse(stdout) as { diagnostics: (JsonDiagnostic & { file: string })[] };
    assert.ok(diagnostics.some((d) => d.file === b && d.rule === 'start_node'));
  });

  it('reports an unreadable file and a syntax error with a location, never a stack trace', () => {
    const missing = attractor('lint', '/nonexistent/x.dot');
    assert.equal(missing.status, 1);
    assert.match(missing.stdout, /error io cannot read/);
    const bad = tempPipeline('digraph G {\n  a -> \n}\n');
    const result = attractor('lint', bad);
    assert.equal(result.status, 1);
    assert.match(result.stdout, /:\d+:\d+ error syntax DOT syntax error/);
    assert.doesNotMatch(result.stderr, /at .*\.js:\d+/);
  });

  it('lints with only its own bundles: the runtime, agent and trace bundles are never loaded', () => {
    const dist = path.dirname(cli);
    const alone = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-lint-bundles-'));
    for (const bundle of ['cli.js', 'cli-main.js', 'cli-lint.js']) fs.copyFileSync(path.join(dist, bundle), path.join(alone, bundle));
    const result = spawnSync(process.execPath, [path.join(alone, 'cli.js'), 'lint', '--json', tempPipeline(clean)], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { diagnostics: [] });
    const run = spawnSync(process.execPath, [path.join(alone, 'cli.js'), 'trace', alone], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /cli-trace\.js/);
  });
});
