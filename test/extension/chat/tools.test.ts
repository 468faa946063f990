import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ScriptedBackend, loadScript, scriptedInterviewer } from '../../../engine/runtime/scripted';
import { lintPipelineTool } from '../../../extension/chat/lint-tool';
import { describeRun, engineRunner, runPipelineTool, untrustedRefusal } from '../../../extension/chat/run-tool';

const examples = path.resolve(import.meta.dirname, '../../../examples');

function workspaceWithExample(name: string): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-chat-'));
  fs.copyFileSync(path.join(examples, `${name}.dot`), path.join(work, `${name}.dot`));
  return work;
}

const scriptedRunner = (name: string) =>
  engineRunner(() => {
    const script = loadScript(path.join(examples, `${name}.scripted.json`));
    return { backend: new ScriptedBackend(script), interviewer: scriptedInterviewer(script) };
  });

describe('run_pipeline tool', () => {
  it('runs the convergence loop and returns status, path, iterations, run directory and artifacts', async () => {
    const work = workspaceWithExample('convergence-loop');
    const progress: string[] = [];
    const result = await runPipelineTool(
      { dot_file: 'convergence-loop.dot' },
      { trusted: true, workspaceRoot: work, runner: scriptedRunner('convergence-loop'), signal: new AbortController().signal, onProgress: (line) => progress.push(line) },
    );
    assert.equal(result.status, 'success', result.failure_reason ?? '');
    assert.equal(result.failure_reason, null);
    assert.equal(result.iterations, 2);
    assert.deepEqual(result.path, ['start', 'implement', 'test_gate', 'implement', 'test_gate', 'done']);
    assert.ok(result.run_directory?.startsWith(path.join(work, '.attractor-runs', 'convergence-loop-')));
    assert.ok(fs.existsSync(path.join(result.run_directory ?? '', 'checkpoint.json')) || fs.existsSync(path.join(result.run_directory ?? '', 'trace.jsonl')));
    assert.deepEqual([...result.artifacts].sort(), ['count_words.sh', 'test_output.txt']);
    assert.ok(progress.includes('iteration 1'), progress.join('\n'));
    assert.ok(progress.includes('test_gate: success'), progress.join('\n'));
  });

  it('runs inline dot_source, keeping the source beside its run directory', async () => {
    const work = workspaceWithExample('convergence-loop');
    const dotSource = fs.readFileSync(path.join(work, 'convergence-loop.dot'), 'utf8');
    const result = await runPipelineTool({ dot_source: dotSource, cwd: '.' }, { trusted: true, workspaceRoot: work, runner: scriptedRunner('convergence-loop'), signal: new AbortController().signal });
    assert.equal(result.status, 'success', result.failure_reason ?? '');
    assert.equal(fs.readFileSync(`${result.run_directory}.dot`, 'utf8'), dotSource);
  });

  it('refuses in an untrusted workspace without running anything', async () => {
    const work = workspaceWithExample('convergence-loop');
    let ran = false;
    const result = await runPipelineTool(
      { dot_file: 'convergence-loop.dot' },
      {
        trusted: false,
        workspaceRoot: work,
        runner: async () => {
          ran = true;
          throw new Error('must not run');
        },
        signal: new AbortController().signal,
      },
    );
    assert.equal(result.status, 'refused');
    assert.equal(result.failure_reason, untrustedRefusal);
    assert.equal(ran, false);
    assert.equal(fs.existsSync(path.join(work, '.attractor-runs')), false);
  });

  it('refuses a pipeline with errors and returns its diagnostics', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-chat-'));
    const result = await runPipelineTool({ dot_source: 'digraph g { a -> b }' }, { trusted: true, workspaceRoot: work, runner: scriptedRunner('convergence-loop'), signal: new AbortController().signal });
    assert.equal(result.status, 'refused');
    assert.ok(result.diagnostics?.some((d) => d.rule === 'start_node' && d.severity === 'error'));
  });

  it('refuses unusable input with a clear message', async () => {
    const result = await runPipelineTool({ dot_file: 'missing.dot' }, { trusted: true, workspaceRoot: os.tmpdir(), runner: scriptedRunner('convergence-loop'), signal: new AbortController().signal });
    assert.equal(result.status, 'refused');
    assert.match(result.failure_reason ?? '', /cannot read .*missing\.dot: ENOENT/);
  });

  it('describes what will run before asking for confirmation', () => {
    const work = workspaceWithExample('convergence-loop');
    const { title, message } = describeRun({ dot_file: 'convergence-loop.dot', params: { goal: 'x' } }, work);
    assert.equal(title, 'Run pipeline convergence_loop?');
    assert.match(message, /with goal="x"/);
    assert.match(message, /`test_gate`: `sh count_words\.sh/);
  });
});

describe('lint_pipeline tool', () => {
  it('returns rule, severity, message and a 1-based line', () => {
    const result = lintPipelineTool({ dot_source: 'digraph g {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> work -> done\n}' }, os.tmpdir());
    assert.ok(result.ok);
    const target = result.diagnostics.find((d) => d.rule === 'edge_target_exists');
    assert.ok(target, JSON.stringify(result.diagnostics));
    assert.equal(target.severity, 'warning');
    assert.equal(target.line, 4);
  });

  it('finds nothing wrong in the convergence loop example', () => {
    const result = lintPipelineTool({ dot_file: path.join(examples, 'convergence-loop.dot') }, undefined);
    assert.ok(result.ok);
    assert.equal(result.errors, 0);
  });
});
