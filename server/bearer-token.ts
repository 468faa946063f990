import crypto from 'node:crypto';
import fs from 'node:fs';
import { writeFileAtomic } from '../engine/runtime/atomic-write';

/** Shorter tokens can be guessed; the generated one has 43 characters. */
const MIN_TOKEN_LENGTH = 32;

/**
 * The server's bearer token: read from `file`, or generated and stored there (mode 0600) when there
 * is no such file. A file holding a shorter token is refused, not overwritten: the clients that have
 * that token would be locked out.
 */
export function loadOrCreateToken(file: string): { readonly token: string; readonly created: boolean } {
  let stored: string | undefined;
  try {
    stored = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (stored !== undefined) {
    if (stored.length >= MIN_TOKEN_LENGTH) return { token: stored, created: false };
    throw new Error(`the token in ${file} has ${stored.length} characters; a token needs at least ${MIN_TOKEN_LENGTH}. Write a longer one there (say \`openssl rand -base64 32\`), or remove the file to have one generated`);
  }
  const token = crypto.randomBytes(32).toString('base64url');
  writeFileAtomic(file, `${token}\n`, true, 0o600);
  return { token, created: true };
}

/** Whether an `Authorization` header carries `token`, compared in constant time. */
export function carriesToken(header: string | undefined, token: string): boolean {
  const match = /^Bearer (\S+)$/i.exec(header ?? '');
  return match?.[1] !== undefined && isToken(match[1], token);
}

/** Whether `text` is `token`, compared in constant time. */
export function isToken(text: string, token: string): boolean {
  const given = Buffer.from(text);
  const expected = Buffer.from(token);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** Loopback addresses only this machine reaches; any other bind needs the token. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
