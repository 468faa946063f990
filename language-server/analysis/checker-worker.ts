import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CHECKER_HEAP_MB, CHECKER_YOUNG_MB } from '../../host/language-server-limits';

/**
 * Starts the checker's worker thread (dist/language-server-worker.js in `bundleDirectory`), or
 * undefined where there is none (run from source: the checks stay on the server's thread). Its
 * messages are read by a WorkerChecker, which must be made in the same turn of the event loop.
 */
export function startCheckerWorker(bundleDirectory: string): Worker | undefined {
  const workerPath = path.join(bundleDirectory, 'language-server-worker.js');
  if (!fs.existsSync(workerPath)) return undefined;
  // Past its cap the worker dies (ERR_WORKER_OUT_OF_MEMORY) and checks go on on the server's thread (WorkerChecker.fallBack).
  return new Worker(workerPath, { resourceLimits: { maxOldGenerationSizeMb: CHECKER_HEAP_MB, maxYoungGenerationSizeMb: CHECKER_YOUNG_MB } });
}
