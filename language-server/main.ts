// The server (dist/language-server-main.js, loaded by bin.ts); vscode-languageserver reads the
// transport (--stdio, --node-ipc, --socket=N) from the command line itself.
import type { Worker } from 'node:worker_threads';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import type { Checker } from './analysis/checker';
import { InlineChecker, WorkerChecker } from './analysis/checker';
import { startServer } from './server';

/** `checkerWorker`, started by bin.ts before this code loaded, checks unless the client asks for checks on this thread. */
export function runServer(checkerWorker: Worker | undefined): void {
  const inWorker = checkerWorker && new WorkerChecker(checkerWorker);
  const createChecker = (wanted: boolean): Checker => {
    if (wanted && inWorker) return inWorker;
    void inWorker?.dispose();
    return new InlineChecker();
  };
  startServer(createConnection(ProposedFeatures.all), createChecker);
}
