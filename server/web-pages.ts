import type http from 'node:http';
import { HttpError } from '../host/protocol/serve-api';
import { isLoopback } from './bearer-token';

/**
 * Without a token only this machine may talk to the server, and no web page through a browser: a page
 * whose name resolves to 127.0.0.1 (DNS rebinding) names another host; a page on any other origin —
 * another loopback port included (a dev server, a package's server) — says so in `Origin`, and a
 * request that carries no Origin (a no-cors GET) in `Sec-Fetch-Site`. Clients that are no browser
 * (curl, VS Code's extension host) send neither, and are answered.
 */
export function refuseWebPages(request: http.IncomingMessage): void {
  const { host, origin } = request.headers;
  if (!isLoopback(hostnameOf(host))) throw new HttpError(403, `requests must name a loopback host, not "${host ?? ''}"`);
  const own = originOf(`http://${host ?? ''}`);
  if (origin !== undefined && originOf(origin) !== own) {
    throw new HttpError(403, `requests from web pages (Origin ${origin}) are refused: without a token this server answers only its own origin, ${own}`);
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new HttpError(403, `requests a web page sends (Sec-Fetch-Site: ${site}) are refused`);
}

/**
 * A change a browser asks for with a session cookie must come from the server's own page: the
 * browser says where it comes from in `Sec-Fetch-Site`, else in `Origin` (compared with the Host it
 * asked). A request that says neither is no browser's, and has no business with a cookie.
 */
export function requireOwnOrigin(request: http.IncomingMessage): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    if (site !== 'same-origin') throw new HttpError(403, `a change from another site (Sec-Fetch-Site: ${site}) is refused: only this server's own page may act with its session`);
    return;
  }
  const { origin, host } = request.headers;
  if (origin === undefined || hostOf(origin) !== host) throw new HttpError(403, `a change from another origin (${origin ?? 'none given'}) is refused: only this server's own page may act with its session`);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** The serialised origin of a URL; `null` (an opaque origin) for anything that is not one. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/** The host name of a Host header: without the port, an IPv6 address without its brackets. */
function hostnameOf(header: string | undefined): string {
  const host = header ?? '';
  const bracketed = /^\[([^\]]+)\]/.exec(host);
  return bracketed?.[1] ?? host.replace(/:\d+$/, '');
}
