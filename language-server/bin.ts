// Entry point: `node dist/language-server.js --stdio` (or --node-ipc / --socket=N). As little as
// possible before the compile cache is on, so that V8's compiled code of the server
// (dist/language-server-main.js) is kept between runs: a fresh server's first answers about a
// document are mostly code V8 would otherwise compile on first use.
import { enableCompileCache } from '../host/code-cache';

enableCompileCache(__dirname, 'language-server-', 'growing');
void import('./main');
