import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';
import { preparePipeline } from '../../engine/prepare';

const root = path.resolve(import.meta.dirname, '../..');
const examplesDir = path.join(root, 'examples');
let cli = '';
const dotFiles = fs.readdirSync(examplesDir).filter((f) => f.endsWith('.dot')).sort();

const children = new Set(['sub-pipeline-child.dot']);
/** Examples that need a real provider (API keys): linted here, never run offline. */
const realModelOnly = new Set(['real-provider.dot']);

interface Expect {
  status: 'success' | 'fail';
  path?: string[];
  path_includes?: string[];
  iterations?: number;
  files?: Record<string, string>;
  logs?: Record<string, string>;
}

describe('examples', () => {
  it('cover every shape', () => {
    const shapes = new Set<string>();
    for (const file of dotFiles) {
      const graph = preparePipeline(fs.readFileSync(path.join(examplesDir, file), 'utf8')).graph;
      for (const node of graph?.nodes.values() ?? []) shapes.add(node.attributes.get('shape')?.value ?? 'box');
    }
    for (const shape of ['Mdiamond', 'Msquare', 'box', 'hexagon', 'diamond', 'component', 'tripleoctagon', 'parallelogram', 'folder', 'house']) {
      assert.ok(shapes.has(shape), `no example uses shape=${shape}`);
    }
  });

  for (const file of dotFiles) {
    it(`${file} is lint-clean and says what it shows`, () => {
      const full = path.join(examplesDir, file);
      const text = fs.readFileSync(full, 'utf8');
      assert.match(text, /^\/\/ \S/, 'starts with a comment header');
      const diagnostics = preparePipeline(text, { sourcePath: full, mode: 'lint' }).diagnostics;
      assert.deepEqual(
        diagnostics.map((d) => d.rule),
        [],
        diagnostics.map((d) => `${d.rule}: ${d.message}`).join('\n'),
      );
      if (!children.has(file) && !realModelOnly.has(file)) assert.ok(fs.existsSync(full.replace(/\.dot$/, '.scripted.json')), 'has a scripted run');
    });
  }
});

describe('examples run offline with their scripts', () => {
  before(() => {
    cli = bundledCli();
  });

  it('every example passes `attractor lint --strict` (warnings fail it)', () => {
    const lint = spawnSync(process.execPath, [cli, 'lint', '--strict', ...dotFiles], { cwd: examplesDir, encoding: 'utf8' });
    assert.equal(lint.status, 0, lint.stdout + lint.stderr);
  });

  for (const file of dotFiles.filter((f) => !children.has(f) && !realModelOnly.has(f))) {
    const text = fs.readFileSync(path.join(examplesDir, file), 'utf8');
    const graph = preparePipeline(text).graph;
    it(`${file} runs to its expected end`, () => {
      const work = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-example-'));
      fs.cpSync(examplesDir, work, { recursive: true });
      const script = path.join(work, file.replace(/\.dot$/, '.scripted.json'));
      const expect = (JSON.parse(fs.readFileSync(script, 'utf8')) as { expect: Expect }).expect;
      const run = spawnSync(process.execPath, [cli, 'run', path.join(work, file), '--cwd', work, '--logs-root', path.join(work, '.run'), '--scripted', script, '--json'], { encoding: 'utf8', timeout: 60_000 });
      const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { status: string; failure_reason: string | null };
      assert.equal(result.status, expect.status, `${result.failure_reason}\n${run.stderr}`);
      const trace = fs
        .readFileSync(path.join(work, '.run/trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { node_id: string; iteration: number });
      const start = graph?.nodes.get('start') ? ['start'] : [];
      const visited = trace.map((r) => r.node_id).filter((id) => !start.includes(id) && id !== 'done');
      if (expect.path) assert.deepEqual(visited, expect.path);
      for (const id of expect.path_includes ?? []) assert.ok(visited.includes(id), `${id} not visited`);
      if (expect.iterations !== undefined) assert.equal(new Set(trace.map((r) => r.iteration)).size, expect.iterations);
      for (const [name, content] of Object.entries(expect.files ?? {})) assert.match(fs.readFileSync(path.join(work, name), 'utf8'), new RegExp(content.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      for (const [name, content] of Object.entries(expect.logs ?? {})) assert.ok(fs.readFileSync(path.join(work, '.run', name), 'utf8').includes(content), `${name} lacks ${content}`);
    });
  }
});
