import crypto from 'node:crypto';
import fs from 'node:fs';
import { writeFileAtomic } from '../engine/runtime/atomic-write';

/** The server's bearer token: read from `file`, or generated and stored there (mode 0600) when it has none. */
export function loadOrCreateToken(file: string): { readonly token: string; readonly created: boolean } {
  try {
    const token = fs.readFileSync(file, 'utf8').trim();
    if (token.length >= 32) return { token, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = crypto.randomBytes(32).toString('base64url');
  writeFileAtomic(file, `${token}\n`, true, 0o600);
  return { token, created: true };
}

/** Whether an `Authorization` header carries `token`, compared in constant time. */
export function carriesToken(header: string | undefined, token: string): boolean {
  const match = /^Bearer (\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** Loopback addresses only this machine reaches; any other bind needs the token. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
