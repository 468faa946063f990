// The load balancer in front of the test's workers: Restate registers one URI per deployment and
// speaks HTTP/2 (h2c) to it, so a byte-level (L4) round-robin proxy is all it needs — what HAProxy's
// `mode tcp` does in a team's setup. In-process, so `npm test` needs nothing beyond Node.
import net from 'node:net';

export interface TcpBalancer {
  readonly port: number;
  close(): void;
}

/**
 * Each new connection goes to the next backend in turn; a backend that refuses the connection (a
 * worker that died) is skipped for the next one, as a failed health check would take it out.
 */
export async function startTcpBalancer(backendPorts: readonly number[]): Promise<TcpBalancer> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    track(client);
    client.pause();
    const connect = (attemptsLeft: number): void => {
      const backend = net.connect(backendPorts[next++ % backendPorts.length] ?? 0, '127.0.0.1');
      track(backend);
      backend.once('connect', () => {
        backend.on('error', () => client.destroy());
        client.on('error', () => backend.destroy());
        client.pipe(backend);
        backend.pipe(client);
        client.on('close', () => backend.destroy());
        backend.on('close', () => client.destroy());
        client.resume();
      });
      backend.once('error', () => {
        if (backend.connecting && attemptsLeft > 1) connect(attemptsLeft - 1);
        else client.destroy();
      });
    };
    connect(backendPorts.length);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
