// Entry point: `node dist/language-server.js --stdio` (or --node-ipc / --socket=N, which
// vscode-languageserver reads from the command line itself).
import fs from 'node:fs';
import path from 'node:path';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import type { Checker } from './analysis/checker';
import { InlineChecker, WorkerChecker } from './analysis/checker';
import { startServer } from './server';

// The bundle ships its worker beside it; run from source, the checks stay on this thread.
const workerPath = path.join(__dirname, 'language-server-worker.js');
const createChecker = (inWorker: boolean): Checker => (inWorker && fs.existsSync(workerPath) ? new WorkerChecker(workerPath) : new InlineChecker());
startServer(createConnection(ProposedFeatures.all), createChecker);
