import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { hostIdentity } from '../../engine/runtime/host-identity';
import { claimQueue } from '../../server/queue-owner';

/** A claim left by a server killed outright: its pid is no process of this host. */
function staleClaim(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const gone = { pid: 2 ** 22 + 17, host: os.hostname(), host_id: hostIdentity(), since: new Date(0).toISOString() };
  fs.writeFileSync(path.join(dir, 'owner.json'), JSON.stringify(gone));
}

const TRIALS = 150;

interface Contender {
  readonly base: string;
  /** One flag per trial, set when both contenders are to go. */
  readonly go: SharedArrayBuffer;
}

/** In a worker: at each trial's signal claims that trial's queue and reports whether it got it. */
function contend({ base, go }: Contender): void {
  const flags = new Int32Array(go);
  for (let trial = 0; trial < TRIALS; trial++) {
    Atomics.wait(flags, trial, 0);
    try {
      claimQueue(path.join(base, String(trial)));
      parentPort?.postMessage('claimed');
    } catch (error) {
      parentPort?.postMessage(String(error));
    }
  }
}

/** Two servers, each in a thread of its own, starting at the same instant over every trial's stale claim: what each got, trial by trial. */
async function* races(base: string): AsyncGenerator<string[]> {
  const go = new SharedArrayBuffer(4 * TRIALS);
  // The file this process runs (the compiled test, or this one under tsx, whose loader the workers inherit).
  const workers = [0, 1].map(() => new Worker(process.argv[1] ?? __filename, { workerData: { base, go } satisfies Contender }));
  const failed = new Promise<never>((_, reject) => workers.forEach((worker) => worker.once('error', reject)));
  try {
    for (let trial = 0; trial < TRIALS; trial++) {
      staleClaim(path.join(base, String(trial)));
      const outcomes = workers.map((worker) => new Promise<string>((resolve) => worker.once('message', resolve)));
      Atomics.store(new Int32Array(go), trial, 1);
      Atomics.notify(new Int32Array(go), trial);
      yield await Promise.race([Promise.all(outcomes), failed]);
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

if (!isMainThread) {
  contend(workerData as Contender);
} else {
  describe('the one-server claim on a queue', () => {
    it('two servers finding the same stale claim at the same instant: exactly one of them takes the queue', async () => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-queue-claim-'));
      let trial = 0;
      for await (const outcomes of races(base)) {
        const claimed = outcomes.filter((outcome) => outcome === 'claimed').length;
        assert.equal(claimed, 1, `trial ${trial++}: ${outcomes.join(' | ')}`);
        assert.match(outcomes.find((outcome) => outcome !== 'claimed') ?? '', /another attractor serve .*(keeps|claimed) the queue of this logs root/);
      }
      fs.rmSync(base, { recursive: true, force: true });
    });

    it('a take-over left half done by a server killed in it does not keep the queue from the next server', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-queue-claim-'));
      staleClaim(dir);
      const takeover = path.join(dir, 'owner.json.takeover');
      fs.mkdirSync(takeover);
      const long = new Date(Date.now() - 60_000);
      fs.utimesSync(takeover, long, long);
      const release = claimQueue(dir);
      assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'owner.json'), 'utf8')).pid, process.pid);
      release();
      assert.equal(fs.existsSync(path.join(dir, 'owner.json')), false);
      fs.rmSync(dir, { recursive: true, force: true });
    });
  });
}
