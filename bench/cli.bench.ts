// CLI start-up: `attractor lint` of a small pipeline, wall and CPU of the whole process, beside a
// bare `node -e 0` start on the same Node so that machine load is visible as the baseline moving.
// Rounds interleave the commands; the minimum is the figure least disturbed by other work on the
// machine, the median is reported beside it. Where valgrind is installed, each command's instruction
// count (callgrind) is reported too: it does not move with the load of the machine.
//
// NODE_EXTRA_CA_CERTS is removed from the children's environment: Node parses that bundle at every
// start, before any script runs (on this machine type it is set, and costs each Node process about
// 420 M instructions, 5× a bare start), so with it every figure would measure the certificate file.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { BenchReport } from './report';

const ROUNDS = 15;
const repo = path.resolve(__dirname, '..');
const small = path.join(repo, 'examples', 'convergence-loop.dot');

const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS'));

interface ProcessTiming {
  readonly wall: number;
  readonly cpu: number;
}

/** One run of `node ARGS` (this Node unless another is given) under bash's `time`: wall and user+system milliseconds of the child. */
export function timeNode(args: readonly string[], node = process.execPath): ProcessTiming {
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const result = spawnSync('bash', ['-c', `TIMEFORMAT='%3R %3U %3S'; { time "${node}" ${quoted} > /dev/null 2>&1; } 2>&1`], { cwd: repo, encoding: 'utf8', env: environment });
  const [wall, user, system] = (result.stdout.trim().split('\n').pop() ?? '').split(' ').map(Number);
  if (wall === undefined || user === undefined || system === undefined || Number.isNaN(wall + user + system)) throw new Error(`node ${args.join(' ')}: ${result.stdout}${result.stderr}`);
  return { wall: wall * 1000, cpu: (user + system) * 1000 };
}

/** Instructions `node ARGS` executes, all threads, by callgrind; undefined without valgrind. */
export function instructions(args: readonly string[], node = process.execPath): number | undefined {
  const result = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', node, ...args], { cwd: repo, encoding: 'utf8', env: environment });
  const collected = /Collected : (\d+)/.exec(result.stderr ?? '')?.[1];
  return collected === undefined ? undefined : Number(collected);
}

const round1 = (value: number) => Number(value.toFixed(1));
export const minimum = (values: number[]) => round1(Math.min(...values));
export const median = (values: number[]) => round1([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0);

export default async function cliBench(): Promise<BenchReport> {
  const commands = {
    'node -e 0': ['-e', '0'],
    'attractor --version': ['dist/cli.js', '--version'],
    'attractor lint small.dot': ['dist/cli.js', 'lint', small],
  } as const;
  const timings = Object.fromEntries(Object.keys(commands).map((name) => [name, [] as ProcessTiming[]])) as Record<keyof typeof commands, ProcessTiming[]>;
  for (const args of Object.values(commands)) timeNode(args); // warms the file cache and the compile cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of Object.entries(commands) as [keyof typeof commands, readonly string[]][]) timings[name].push(timeNode(args));
  }
  const figures: Record<string, number | string> = {};
  for (const [name, runs] of Object.entries(timings)) {
    figures[`${name}, wall, min / median (ms)`] = `${minimum(runs.map((r) => r.wall))} / ${median(runs.map((r) => r.wall))}`;
    figures[`${name}, cpu, min / median (ms)`] = `${minimum(runs.map((r) => r.cpu))} / ${median(runs.map((r) => r.cpu))}`;
  }
  for (const [name, args] of Object.entries(commands)) {
    const count = instructions(args);
    if (count !== undefined) figures[`${name}, instructions (M)`] = Math.round(count / 1e6);
  }
  return {
    name: 'cli start-up',
    figures,
    notes: `Node ${process.version}; small.dot is examples/convergence-loop.dot; ${ROUNDS} interleaved rounds after one warm-up; load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs; NODE_EXTRA_CA_CERTS unset for the children`,
  };
}
