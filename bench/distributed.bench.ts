// Durable distributed runs (issue 19): twenty runs of a tool-and-gate pipeline on two `attractor
// worker`s behind an L4 balancer and restate-server, one worker kill -9ed mid-run (the distributed test's
// scenario): runs per minute, and the time from the kill until every interrupted run moved again.
import os from 'node:os';
import path from 'node:path';
import { distributedRounds } from '../test/restate/distributed-rounds';
import { ensureTestBundle } from '../test/test-bundle';
import type { BenchReport } from './report';

export default async function distributedBench(): Promise<BenchReport> {
  const figures = await distributedRounds(path.join(ensureTestBundle(), 'cli.js'), 20);
  return {
    name: 'distributed',
    figures: {
      'runs finished (of 20)': figures.succeeded,
      'runs per minute (submit to last finish)': Number(figures.runsPerMinute.toFixed(1)),
      'recovery after kill -9 of a worker (ms)': Math.round(figures.recoveryMs),
      'in-flight nodes re-run': figures.inFlightReruns,
      're-runs of finished nodes': figures.finishedNodeReruns.length,
      'gates answered': figures.gatesAnswered,
    },
    notes: `3 tool nodes of ~0.1 s and a gate per run; two workers on one 2-core machine (load average ${os.loadavg()[0]?.toFixed(0)}); ${[...figures.failures, ...figures.finishedNodeReruns, ...figures.gateProblems].slice(0, 3).join('; ')}`,
  };
}
