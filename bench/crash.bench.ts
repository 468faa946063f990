// The randomized crash test at length: kill -9 of `attractor run`/`resume` at random moments over
// many runs (ATTRACTOR_CRASH_BENCH_MS, default 5 minutes), with a large checkpoint.
import { crashRounds } from '../test/engine/runtime/crash-rounds';
import { ensureTestBundle } from '../test/test-bundle';
import path from 'node:path';
import type { BenchReport } from './report';

export default async function crashBench(): Promise<BenchReport> {
  const budgetMs = Number(process.env.ATTRACTOR_CRASH_BENCH_MS ?? 300_000);
  const figures = await crashRounds(path.join(ensureTestBundle(), 'cli.js'), budgetMs);
  return {
    name: 'crash',
    figures: {
      'runs to the end': figures.runs,
      'CLI processes (run or resume)': figures.rounds,
      'kill -9': figures.kills,
      'kill -9 after the first commit': figures.killsAfterCommit,
      're-runs of finished nodes': figures.reruns,
      'leftover temp files': figures.leftoverTempFiles.length,
      'runs with a wrong trace': figures.badTraces.length,
      'runs or resumes that failed': figures.failures.length,
    },
    notes: [
      `${Math.round(budgetMs / 1000)} s of rounds; a 62-node chain of tool nodes, 100 KB parameter + 4 KB output per node in the state; each process killed after a random 300–1,800 ms`,
      ...[...figures.leftoverTempFiles, ...figures.badTraces, ...figures.failures].slice(0, 5),
    ].join('; '),
  };
}
