// Worker thread entry (dist/language-server-worker.js): the checker (dist/language-server-checker.js)
// loads with V8's compiled code of its last run, which it leaves when the worker stops.
import { enableCompileCache } from '../../host/code-cache';

enableCompileCache(__dirname, 'language-server-', 'growing');
void import('./check-worker');
