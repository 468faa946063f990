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
import { node24 } from '../test/node24';
import type { BenchReport } from './report';

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

/**
 * A chain whose every step is gated on a key only its first node declares: each condition's
 * "written before this edge?" looks all the way back, the shape that made a per-condition walk quadratic.
 */
function generateKeyChain(nodes: number): string {
  const lines = ['digraph chain {', '  start [shape=Mdiamond]', '  done [shape=Msquare]', '  step_0 [shape=parallelogram, tool_command="./decide.sh", outputs="verdict"]', '  start -> step_0'];
  for (let i = 1; i < nodes - 2; i++) {
    lines.push(`  step_${i} [shape=parallelogram, tool_command="./step.sh ${i}"]`);
    lines.push(`  step_${i - 1} -> step_${i} [condition="context.verdict=go"]`, `  step_${i - 1} -> done [condition="context.verdict!=go"]`);
  }
  lines.push(`  step_${nodes - 3} -> done`, '}');
  return `${lines.join('\n')}\n`;
}

/**
 * Nodes named only in edges, unreachable from the start, half of them one letter away from a
 * declared node: every one gets a suggestion and a declaration fix, the work that was quadratic
 * (a 96 KB file of them took 32 s to validate).
 */
function generateUndeclared(nodes: number): string {
  const lines = ['digraph undeclared {', '  start [shape=Mdiamond]', '  done [shape=Msquare]', '  start -> done'];
  const half = Math.floor((nodes - 2) / 2);
  for (let i = 0; i < half; i++) lines.push(`  node_${i} [prompt="p"]`);
  for (let i = 0; i + 1 < half; i += 2) lines.push(`  mode_${i} -> nods_${i + 1}`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function graphvizAvailable(): boolean {
  return spawnSync('dot', ['-V'], { encoding: 'utf8' }).status === 0 && spawnSync('nop', ['-?'], { encoding: 'utf8' }).error === undefined;
}

interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

// This machine is shared: wall time swings with the load, CPU time much less, so growth is judged on CPU time.
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1));
}

function measure(fn: () => number | void, runs: number): Timing {
  fn();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const wallStart = performance.now();
    const cpuStart = process.cpuUsage();
    const childCpu = fn();
    const cpu = process.cpuUsage(cpuStart);
    walls.push(performance.now() - wallStart);
    cpus.push(typeof childCpu === 'number' ? childCpu : (cpu.user + cpu.system) / 1000);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

/** Runs a Graphviz command under bash's `time` and returns the child's CPU milliseconds. */
function graphviz(command: string, file: string): number {
  const result = spawnSync('bash', ['-c', `TIMEFORMAT='%3U %3S'; { time ${command} "$0" > /dev/null 2>&1; } 2>&1`, file], { encoding: 'utf8', timeout: 900_000 });
  const [user, system] = (result.stdout.trim().split('\n').pop() ?? '').split(' ').map(Number);
  if (result.status !== 0 || user === undefined || system === undefined || Number.isNaN(user + system)) throw new Error(`${command} failed: ${result.stdout}${result.stderr}`);
  return (user + system) * 1000;
}

const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? Number((a / b).toFixed(2)) : 'n/a');

export default async function parseBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-'));
  const figures: Record<string, number | string> = {};
  const haveGraphviz = graphvizAvailable();
  const measures: Record<string, Partial<Record<number, Timing>>> = {};
  const record = (measure: string, size: number, timing: Timing) => ((measures[measure] ??= {})[size] = timing);
  for (const size of SIZES) {
    const text = generatePipeline(size);
    const file = path.join(dir, `pipeline-${size}.dot`);
    fs.writeFileSync(file, text);
    const check = preparePipeline(text, { sourcePath: file, mode: 'lint' });
    const errors = check.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0 || check.graph?.nodes.size !== size) throw new Error(`generated ${size}-node pipeline is wrong: ${errors[0]?.message ?? check.graph?.nodes.size}`);
    const runs = size >= 10_000 ? 5 : 9;
    record('parse', size, measure(() => void parseDot(text), runs));
    record('parse+validate', size, measure(() => void preparePipeline(text, { sourcePath: file, mode: 'validate' }), runs));
    record('parse+lint', size, measure(() => void preparePipeline(text, { sourcePath: file, mode: 'lint' }), runs));
    const chain = generateKeyChain(size);
    record('parse+lint (chain gated on one early key)', size, measure(() => void preparePipeline(chain, { sourcePath: file, mode: 'lint' }), runs));
    const undeclared = generateUndeclared(size);
    record('parse+validate (undeclared unreachable near misses)', size, measure(() => void preparePipeline(undeclared, { sourcePath: file, mode: 'validate' }), runs));
    if (haveGraphviz) {
      record('graphviz nop (parse)', size, measure(() => graphviz('nop', file), 3));
      // dot lays out 10,000 nodes in about a minute: one run is the measurement.
      record('dot -Tjson (parse+layout)', size, measure(() => graphviz('dot -Tjson', file), size >= 10_000 ? 1 : 3));
    }
  }
  // The anchor: dot-language-support (the core of dot-language-server) parsing and validating the same files, under Node 24.
  const anchorSizes = SIZES.filter((size) => size >= 1_000);
  const side = spawnSync(node24(), [path.resolve('bench/language-server/dot-language-support-side.mjs'), JSON.stringify(anchorSizes.map((size) => ({ file: path.join(dir, `pipeline-${size}.dot`), offsets: [] })))], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const anchor = side.status === 0 ? (JSON.parse(side.stdout) as { diagnosticsCpu: number }[]) : [];
  anchorSizes.forEach((size, k) => {
    const cpu = anchor[k]?.diagnosticsCpu;
    figures[`anchor dot-language-support parse+validate ${size} nodes (ms cpu)`] = cpu ?? `failed: ${side.stderr.slice(0, 200)}`;
    figures[`parse+lint / anchor ${size} nodes (x, cpu)`] = ratio(measures['parse+lint']?.[size]?.cpu, cpu);
  });
  for (const [name, bySize] of Object.entries(measures)) {
    for (const size of SIZES) {
      figures[`${name} ${size} nodes (ms cpu)`] = bySize[size]?.cpu ?? 'n/a';
      figures[`${name} ${size} nodes (ms wall)`] = bySize[size]?.wall ?? 'n/a';
    }
    figures[`${name} growth 1k/100 (x, cpu)`] = ratio(bySize[1_000]?.cpu, bySize[100]?.cpu);
    figures[`${name} growth 10k/1k (x, cpu)`] = ratio(bySize[10_000]?.cpu, bySize[1_000]?.cpu);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'parse',
    figures,
    notes: `medians; Graphviz CPU is the child's user+system time; load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs${haveGraphviz ? '' : '; Graphviz not installed (apt-get install graphviz)'}`,
  };
}
