// Take-over of a run whose worker stopped mid-tool (issue 30.2), on two workers in pid namespaces of
// their own (two hosts sharing a file system), with a 6 s run lock lease: the frozen-worker test's
// scenarios, timed. Frozen: the walking engine SIGSTOPped (its guard kills the tool before the lease
// lapses). Lost: its host's whole namespace killed (no kill confirmation can come: the taker waits
// 7/6 of the lease after the last renewal).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureTestBundle } from '../test/test-bundle';
import { TAKEOVER_LEASE_MS, frozenWorker, loadNow, lostHost, startTwoHosts } from '../test/restate/takeover-scenarios';
import type { BenchReport } from './report';

export default async function restateTakeoverBench(): Promise<BenchReport> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-bench-takeover-')));
  const cluster = await startTwoHosts(path.join(ensureTestBundle(), 'cli.js'), dir);
  try {
    const frozen = await frozenWorker(cluster, dir);
    await frozen.run.result();
    frozen.thaw();
    const lost = await lostHost(cluster, dir);
    await lost.run.result();
    const twins = [frozen.run, lost.run].filter((run) => run.ledger().includes('OVERLAP')).length;
    return {
      name: 'restate take-over',
      figures: {
        'run lock lease (ms)': TAKEOVER_LEASE_MS,
        'frozen worker: its tool killed after (ms)': Math.round(frozen.times.toolGoneMs),
        'frozen worker: node started elsewhere after (ms)': Math.round(frozen.times.takenOverMs),
        'lost host: node started elsewhere after (ms)': Math.round(lost.times.takenOverMs),
        'runs with two copies of the node alive at once': twins,
      },
      notes: `two workers in pid namespaces of their own on one 2-core machine (load average ${loadNow()}); Restate's HTTP/2 pings 1 s apart with 1 s to answer, retries at most 0.5 s apart`,
    };
  } finally {
    cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
