// The standalone debug adapter (dist/debug-adapter.js): DAP over stdin/stdout. Nothing else may
// write to stdout, so engine diagnostics go to stderr.
// With `--server=PORT` it serves a session per TCP connection on 127.0.0.1 instead (PORT 0: a free
// one), as the extension host runs sessions inline, one process for many; it prints
// `listening on 127.0.0.1:PORT` once it accepts connections.
import net from 'node:net';
import { AttractorDebugSession } from './session';

const port = /^--server=(\d+)$/.exec(process.argv[2] ?? '')?.[1];
if (port === undefined) {
  const session = new AttractorDebugSession();
  process.on('SIGTERM', () => session.shutdown());
  session.start(process.stdin, process.stdout);
} else {
  const server = net.createServer((socket) => {
    const session = new AttractorDebugSession();
    session.setRunAsServer(true);
    session.start(socket, socket);
  });
  process.on('SIGTERM', () => process.exit(0));
  server.listen(Number(port), '127.0.0.1', () => console.log(`listening on 127.0.0.1:${(server.address() as net.AddressInfo).port}`));
}
