/** The Restate service name of the engine's workflow: its ingress paths are /attractor/<run id>/<handler>. */
export const RESTATE_SERVICE = 'attractor';

/** `restate://HOST:PORT` (Restate's ingress) as the http URL requests go to. */
export function ingressUrl(address: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new Error(`--on expects restate://HOST:PORT (Restate's ingress), got "${address}"`);
  }
  if (url.protocol !== 'restate:' || url.hostname === '' || url.port === '' || url.pathname.replace(/^\/+/, '') !== '') {
    throw new Error(`--on expects restate://HOST:PORT (Restate's ingress), got "${address}"`);
  }
  return new URL(`http://${url.host}/`);
}
