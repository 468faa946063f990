// `attractor lint` of a 10,000-node pipeline in a fresh process, beside the anchor doing its parse +
// validate of the same file in a fresh Node 24 process (dot-language-support, through the side
// script's `once` mode): the CPU a user pays for one check, start-up, module loading, a cold JIT and
// the young generation's first collections included. The same CLI bundle on the anchor's Node 24 shows
// the part that is the Node version; bare `node -e 0` starts of both Nodes the part that is start-up alone. Rounds interleave the commands; minimum and median are reported, and
// where valgrind is installed, each command's instruction count (which does not move with the load).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { node24 } from '../test/node24';
import { instructions, median, minimum, timeNode } from './cli.bench';
import { generatePipeline } from './parse.bench';
import type { BenchReport } from './report';

const ROUNDS = 7;
const NODES = 10_000;

export default async function lintColdBench(): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-lint-cold-'));
  const file = path.join(dir, `pipeline-${NODES}.dot`);
  fs.writeFileSync(file, generatePipeline(NODES));
  const anchorNode = node24();
  const side = path.resolve(__dirname, 'language-server', 'dot-language-support-side.mjs');
  const commands: Record<string, { readonly node: string; readonly args: readonly string[] }> = {
    'attractor lint': { node: process.execPath, args: ['dist/cli.js', 'lint', file] },
    // The same bundle on the anchor's Node: V8's JIT tiers differ between the two, and a cold process runs mostly unoptimised code.
    'attractor lint on Node 24': { node: anchorNode, args: ['dist/cli.js', 'lint', file] },
    'anchor parse+validate': { node: anchorNode, args: [side, 'once', file] },
    'node -e 0': { node: process.execPath, args: ['-e', '0'] },
    'node 24 -e 0': { node: anchorNode, args: ['-e', '0'] },
  };
  const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (const { node, args } of Object.values(commands)) timeNode(args, node); // warms the file cache and the compile cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, { node, args }] of Object.entries(commands)) cpu[name]?.push(timeNode(args, node).cpu);
  }
  const figures: Record<string, number | string> = {};
  for (const [name, runs] of Object.entries(cpu)) figures[`${name} ${name.endsWith('-e 0') ? '' : `${NODES} nodes `}cold, cpu, min / median (ms)`] = `${minimum(runs)} / ${median(runs)}`;
  const ours = cpu['attractor lint'] ?? [];
  const anchor = cpu['anchor parse+validate'] ?? [];
  const ratios = (a: number[], b: number[]) => `${(minimum(a) / minimum(b)).toFixed(2)} / ${(median(a) / median(b)).toFixed(2)}`;
  figures[`attractor lint / anchor ${NODES} nodes cold (x, cpu min / median)`] = ratios(ours, anchor);
  figures[`attractor lint on Node 24 / anchor ${NODES} nodes cold (x, cpu min / median)`] = ratios(cpu['attractor lint on Node 24'] ?? [], anchor);
  const oursCount = instructions(commands['attractor lint']?.args ?? [], process.execPath);
  const anchorCount = instructions(commands['anchor parse+validate']?.args ?? [], anchorNode);
  if (oursCount !== undefined && anchorCount !== undefined) {
    figures[`attractor lint ${NODES} nodes cold, instructions (M)`] = Math.round(oursCount / 1e6);
    figures[`anchor parse+validate ${NODES} nodes cold, instructions (M)`] = Math.round(anchorCount / 1e6);
    figures[`attractor lint / anchor ${NODES} nodes cold (x, instructions)`] = Number((oursCount / anchorCount).toFixed(2));
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'lint cold process',
    figures,
    notes: `whole-process CPU (user+system) of fresh processes: ours on Node ${process.version}, the anchor on Node 24; ${ROUNDS} interleaved rounds after one warm-up; load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs; NODE_EXTRA_CA_CERTS unset for the children`,
  };
}
