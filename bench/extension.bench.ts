// Activation time and extension-host memory of the packaged extension in a real VS Code
// (code-server): the extension logs both at the end of activate() to its output channel, which
// VS Code persists in the profile's logs; each round is a fresh profile.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchReport } from './report';
import { openFile, readAttractorLog, startCodeServer } from '../test/e2e/code-server';

const ROUNDS = 3;
const repo = path.resolve(__dirname, '..');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1));
}

export default async function bench(): Promise<BenchReport> {
  const packaged = spawnSync('npm', ['run', 'package'], { cwd: repo, encoding: 'utf8' });
  if (packaged.status !== 0) throw new Error(`npm run package failed:\n${packaged.stdout}\n${packaged.stderr}`);
  const vsix = path.join(repo, 'attractor.vsix');
  const example = fs.readFileSync(path.join(repo, 'examples', 'human-review.dot'), 'utf8');
  const activation: number[] = [];
  const rss: number[] = [];
  const heap: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const vscode = await startCodeServer({ vsix, files: { 'human-review.dot': example } });
    try {
      await openFile(vscode.page, 'human-review.dot', 'digraph');
      const deadline = Date.now() + 60_000;
      let match: RegExpExecArray | null = null;
      while (!match && Date.now() < deadline) {
        match = /activated in ([\d.]+) ms.*rss ([\d.]+) MB, heapUsed ([\d.]+) MB/.exec(readAttractorLog(vscode.userDataDir));
        if (!match) await vscode.page.waitForTimeout(250);
      }
      if (!match) throw new Error('the extension never logged its activation');
      activation.push(Number(match[1]));
      rss.push(Number(match[2]));
      heap.push(Number(match[3]));
    } finally {
      await vscode.stop();
    }
  }
  return {
    name: 'extension',
    figures: {
      'activate() incl. language client start (ms)': median(activation),
      'extension host rss at activation (MB)': median(rss),
      'extension host heapUsed at activation (MB)': median(heap),
      '.vsix size (KB)': Math.round(fs.statSync(vsix).size / 1024),
    },
    notes: `code-server ${ROUNDS} fresh profiles, medians; timed inside activate() (bundle load by VS Code not included); memory is the whole extension host process (VS Code's built-in extensions included), not ours alone; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
  };
}
