// parse, parse+validate and full lint of generated pipelines of 100, 1,000 and 10,000 nodes, with
// the growth ratios (a linear engine gives about 10), and Graphviz on the same files as a yardstick:
// `nop` (Graphviz's parser and printer, no layout) and `dot -Tjson` (parse and layout). `dot -Tcanon`
// is no parse-only measure: it lays the graph out too.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDot } from '../engine/parse/dot-parser';
import { preparePipeline } from '../engine/prepare';
import type { BenchReport } from './report';
import { medianMs } from './report';

const SIZES = [100, 1_000, 10_000] as const;

/**
 * A pipeline of `nodes` nodes shaped like real ones: worker/gate pairs, each gate looping back to
 * its worker with loop_restart and forward on its pass token, plus a stylesheet, defaults and a
 * cluster, so every rule has work to do.
 */
export function generatePipeline(nodes: number): string {
  const pairs = Math.max(1, Math.floor((nodes - 2) / 2));
  const lines = [
    'digraph generated {',
    '  graph [goal="generated benchmark pipeline", default_max_retries=1, model_stylesheet="* { llm_model: gpt-5; } .fast { reasoning_effort: low; }"]',
    '  node [timeout="10m"]',
    '  start [shape=Mdiamond]',
    '  done [shape=Msquare]',
  ];
  for (let i = 0; i < pairs; i++) {
    const cls = i % 3 === 0 ? ', class="fast"' : '';
    lines.push(`  work_${i} [prompt="Step ${i}: do the work for $goal.", feedback_from=gate_${i}${cls}]`);
    lines.push(`  gate_${i} [shape=parallelogram, tool_command="make check_${i} > gate_${i}.txt 2>&1 && echo gate_pass || echo gate_fail"]`);
  }
  lines.push('  start -> work_0');
  for (let i = 0; i < pairs; i++) {
    lines.push(`  work_${i} -> gate_${i}`);
    lines.push(`  gate_${i} -> ${i + 1 < pairs ? `work_${i + 1}` : 'done'} [condition="context.tool.last_line=gate_pass"]`);
    lines.push(`  gate_${i} -> work_${i} [condition="context.tool.last_line=gate_fail", loop_restart=true]`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function graphvizAvailable(): boolean {
  return spawnSync('dot', ['-V'], { encoding: 'utf8' }).status === 0 && spawnSync('nop', ['-?'], { encoding: 'utf8' }).error === undefined;
}

function timeGraphviz(command: readonly string[], file: string, runs: number): number | string {
  const [program, ...args] = command as [string, ...string[]];
  const once = () => {
    const result = spawnSync(program, [...args, file], { timeout: 600_000, stdio: ['ignore', 'ignore', 'pipe'] });
    if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr?.toString() ?? result.signal}`);
  };
  try {
    return medianSync(once, runs);
  } catch (error) {
    return `failed: ${(error as Error).message.slice(0, 80)}`;
  }
}

function medianSync(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number((times[Math.floor(times.length / 2)] ?? 0).toFixed(3));
}

const ratio = (a: number | string | undefined, b: number | string | undefined) => (typeof a === 'number' && typeof b === 'number' && b > 0 ? Number((a / b).toFixed(2)) : 'n/a');

export default async function parseBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-'));
  const figures: Record<string, number | string> = {};
  const byMeasure: Record<string, Record<number, number | string>> = { parse: {}, 'parse+validate': {}, 'parse+lint': {}, 'graphviz nop (parse)': {}, 'dot -Tjson (parse+layout)': {} };
  const haveGraphviz = graphvizAvailable();
  for (const size of SIZES) {
    const text = generatePipeline(size);
    const file = path.join(dir, `pipeline-${size}.dot`);
    fs.writeFileSync(file, text);
    const check = preparePipeline(text, { sourcePath: file, mode: 'lint' });
    const errors = check.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(`generated ${size}-node pipeline has errors: ${errors[0]?.message}`);
    const runs = size >= 10_000 ? 5 : 9;
    byMeasure.parse![size] = await medianMs(() => parseDot(text), runs);
    byMeasure['parse+validate']![size] = await medianMs(() => preparePipeline(text, { sourcePath: file, mode: 'validate' }), runs);
    byMeasure['parse+lint']![size] = await medianMs(() => preparePipeline(text, { sourcePath: file, mode: 'lint' }), runs);
    if (haveGraphviz) {
      byMeasure['graphviz nop (parse)']![size] = timeGraphviz(['nop'], file, 5);
      // dot lays out 10,000 nodes in tens of seconds: one run is the measurement.
      byMeasure['dot -Tjson (parse+layout)']![size] = timeGraphviz(['dot', '-Tjson', '-o', '/dev/null'], file, size >= 10_000 ? 1 : 3);
    }
    figures[`nodes in the ${size} pipeline`] = preparePipeline(text).graph?.nodes.size ?? 0;
  }
  for (const [measure, values] of Object.entries(byMeasure)) {
    if (Object.keys(values).length === 0) continue;
    for (const size of SIZES) figures[`${measure} ${size} nodes (ms)`] = values[size] ?? 'n/a';
    figures[`${measure} growth 1k/100 (x)`] = ratio(values[1_000], values[100]);
    figures[`${measure} growth 10k/1k (x)`] = ratio(values[10_000], values[1_000]);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'parse',
    figures,
    notes: `median wall time in this process (Graphviz: per process, including its start-up); load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs${haveGraphviz ? '' : '; Graphviz not installed (apt-get install graphviz)'}`,
  };
}
