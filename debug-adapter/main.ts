// The standalone debug adapter (dist/debug-adapter.js): DAP over stdin/stdout. Nothing else may
// write to stdout, so engine diagnostics go to stderr.
import { AttractorDebugSession } from './session';

const session = new AttractorDebugSession();
process.on('SIGTERM', () => session.shutdown());
session.start(process.stdin, process.stdout);
