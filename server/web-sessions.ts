import crypto from 'node:crypto';
import type http from 'node:http';
import { HttpError } from '../host/protocol/serve-api';
import type { OperationId } from '../host/protocol/serve-routes';
import { carriesToken } from './bearer-token';
import { refuseWebPages, requireOwnOrigin } from './web-pages';

const COOKIE = 'attractor_session';
/** How long a sign-in lasts; changing the server's token ends every sign-in at once. */
const SESSION_SECONDS = 14 * 24 * 60 * 60;
/** What anyone may fetch: the page and its files (which then ask who the caller is), and the sign-in. */
const OPEN: ReadonlySet<OperationId> = new Set(['webPage', 'webAsset', 'sessionState', 'signIn']);

/**
 * The browser app's sign-ins on a server with a token: the page trades the token once (POST /session)
 * for a session in an HttpOnly, SameSite=Strict cookie, so no page script ever holds the token. A
 * session is its issue time and a nonce, signed with a key derived from the token: nothing is held
 * by the server, so a restarted server with the same token keeps its users signed in, and the
 * cookie tells nothing of the token.
 */
export class WebSessions {
  private readonly key: Buffer | undefined;

  constructor(token: string | undefined) {
    this.key = token === undefined ? undefined : crypto.createHmac('sha256', token).update('attractor web session').digest();
  }

  /** A new session's cookie value. */
  open(): string {
    const claim = `${Math.floor(Date.now() / 1000)}.${crypto.randomBytes(16).toString('base64url')}`;
    return `${claim}.${this.sign(claim)}`;
  }

  /** Whether the request's cookie holds a session this server's token signed, not yet expired. */
  holds(request: http.IncomingMessage): boolean {
    const value = cookieValue(request.headers.cookie, COOKIE);
    const match = value === undefined ? null : /^(\d+\.[\w-]+)\.([\w-]+)$/.exec(value);
    if (!match || this.key === undefined) return false;
    const [, claim = '', signature = ''] = match;
    const expected = Buffer.from(this.sign(claim));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return false;
    const age = Date.now() / 1000 - Number(claim.split('.')[0]);
    return age >= -60 && age < SESSION_SECONDS;
  }

  private sign(claim: string): string {
    if (this.key === undefined) throw new Error('sessions need the server\'s token');
    return crypto.createHmac('sha256', this.key).update(claim).digest('base64url');
  }

  /**
   * Refuses what the caller may not do. Without a token: anything but this machine's own clients and
   * the server's own page (refuseWebPages). With one: a caller with neither the bearer token nor a
   * session (except for the page and the sign-in), and any change a session asks for from another origin.
   */
  admit(request: http.IncomingMessage, operation: OperationId, token: string | undefined): void {
    if (token === undefined) return refuseWebPages(request);
    if (carriesToken(request.headers.authorization, token)) return;
    const changes = request.method !== 'GET' && request.method !== 'HEAD';
    if (this.holds(request) || operation === 'signIn') {
      if (changes) requireOwnOrigin(request);
      return;
    }
    if (!OPEN.has(operation)) throw new HttpError(401, 'this server requires Authorization: Bearer <token> (or, in a browser, signing in on its page)');
  }
}

/** The Set-Cookie value of a session: never readable by page script, never sent by another site's request. */
export function sessionCookie(value: string): string {
  return `${COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_SECONDS}`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
