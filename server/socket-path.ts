import fs from 'node:fs';
import net from 'node:net';

/**
 * Makes `socket` free to listen on. A socket file nobody answers on was left by a server that
 * died without closing (kill -9): it is removed. A socket a server answers on, or a path that is
 * not a socket at all, is refused: neither is ours to take.
 */
export async function claimSocketPath(socket: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socket);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!stat.isSocket()) throw new Error(`${socket} exists and is not a socket: choose another path for the server`);
  if (await answers(socket)) throw new Error(`${socket} is in use: another server is listening on it`);
  fs.unlinkSync(socket);
}

function answers(socket: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.connect(socket);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (error: NodeJS.ErrnoException) => {
      // Refused: the file outlived its server.
      if (error.code === 'ECONNREFUSED') resolve(false);
      else reject(new Error(`${socket}: cannot tell whether a server listens on it (${error.message})`));
    });
  });
}
