import crypto from 'node:crypto';
import type http from 'node:http';
import { HttpError } from '../host/protocol/serve-api';
import type { OperationId } from '../host/protocol/serve-routes';
import { carriesToken } from './bearer-token';
import { refuseWebPages, requireOwnOrigin } from './web-pages';

const COOKIE = 'attractor_session';
/** Sessions held at once; the oldest is forgotten first (its browser signs in again). */
const MAX_SESSIONS = 1000;
/** What anyone may fetch: the page and its files (which then ask who the caller is), and the sign-in. */
const OPEN: ReadonlySet<OperationId> = new Set(['webPage', 'webAsset', 'sessionState', 'signIn']);

/**
 * The browser app's sign-ins on a server with a token: the page trades the token once (POST /session)
 * for an opaque session id in an HttpOnly, SameSite=Strict cookie, so no page script ever holds the
 * token. Held in memory: a restarted server asks again.
 */
export class WebSessions {
  private readonly ids = new Set<string>();

  open(): string {
    const id = crypto.randomBytes(32).toString('base64url');
    this.ids.add(id);
    if (this.ids.size > MAX_SESSIONS) this.ids.delete(this.ids.values().next().value as string);
    return id;
  }

  /** Whether the request's cookie names a session of this server. */
  holds(request: http.IncomingMessage): boolean {
    const id = cookieValue(request.headers.cookie, COOKIE);
    return id !== undefined && this.ids.has(id);
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
export function sessionCookie(id: string): string {
  return `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
