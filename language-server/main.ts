// Entry point: `node dist/language-server.js --stdio` (or --node-ipc / --socket=N, which
// vscode-languageserver reads from the command line itself).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server';

startServer(createConnection(ProposedFeatures.all));
