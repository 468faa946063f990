import fs from 'node:fs';
import type http from 'node:http';
import type { Socket } from 'node:net';

/** File descriptors the server keeps for itself beside its clients: its own files, the validation worker, stdio. */
const BASE_RESERVE = 64;
/** …and for each run it may walk at once: its commands' pipes, git for the workspace snapshots, its run directory's files. */
const PER_RUN_RESERVE = 16;
/** Connections past the cap kept just long enough to be told why (503); any more are closed at once. */
const REFUSAL_BAND = 16;
/** How long a connection over the cap may take to send its request before it is closed without an answer. */
const REFUSAL_WAIT_MS = 2_000;
/** The fewest connections a server takes, however low its open-file limit. */
const FLOOR = 8;
/** Where the limit cannot be read (not Linux): a common soft limit. */
const UNKNOWN_LIMIT = 1024;

/** The process's open-file limit (soft), from /proc on Linux; undefined elsewhere. */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(limitsFile, 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(text)?.[1];
  if (soft === undefined) return undefined;
  return soft === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(soft);
}

/** How many clients may be connected at once so that `maxRunning` runs still have the file descriptors they need. */
export function connectionsWithin(fileLimit: number | undefined, maxRunning: number): { readonly cap: number; readonly short: boolean } {
  const room = (fileLimit ?? UNKNOWN_LIMIT) - BASE_RESERVE - PER_RUN_RESERVE * maxRunning - REFUSAL_BAND;
  return { cap: Math.max(FLOOR, Math.min(room, 1_000_000)), short: room < FLOOR };
}

/**
 * At most `cap` connections are served. A connection beyond it gets 503 with the reason in answer
 * to its first request (then it is closed), or, when it sends none soon or too many are waiting to
 * be told, is closed at once: idle clients cannot take the file descriptors the runs' commands need.
 */
export class ConnectionCap {
  private open = 0;
  private readonly turnedAway = new WeakSet<Socket>();

  constructor(
    server: http.Server,
    readonly cap: number,
  ) {
    // Node closes what comes past this at once, before it is a socket.
    server.maxConnections = cap + REFUSAL_BAND;
    server.on('connection', (socket: Socket) => {
      this.open++;
      socket.once('close', () => this.open--);
      if (this.open <= cap) return;
      this.turnedAway.add(socket);
      socket.setTimeout(REFUSAL_WAIT_MS, () => socket.destroy());
    });
  }

  /** Why a request that came over a connection past the cap is refused; undefined for a connection served. */
  refusal(socket: Socket): string | undefined {
    if (!this.turnedAway.has(socket)) return undefined;
    return `this server already holds ${this.cap} connections, its limit (--max-connections, kept below its open-file limit); try again when some have closed`;
  }
}
