// The server (dist/language-server-main.js, loaded by bin.ts); vscode-languageserver reads the
// transport (--stdio, --node-ipc, --socket=N) from the command line itself.
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
