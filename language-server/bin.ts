// Entry point: `node dist/language-server.js --stdio` (or --node-ipc / --socket=N). As little as
// possible before the compile cache is on, so that V8's compiled code of the server
// (dist/language-server-main.js) is kept between runs: a fresh server's first answers about a
// document are mostly code V8 would otherwise compile on first use.
import { enableCompileCache } from '../host/code-cache';
import { startCheckerWorker } from './analysis/checker-worker';

enableCompileCache(__dirname, 'language-server-', 'growing');
// The checker's thread starts first: its own start (a Node environment, the checker's bundle) then
// runs beside the loading of the server's code and the client's initialize, not after them.
const checkerWorker = startCheckerWorker(__dirname);
void import('./main').then(({ runServer }) => runServer(checkerWorker));
