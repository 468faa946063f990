/**
 * A per-call signal that follows `parent` until disposed. The SDKs attach an abort listener to the
 * signal of every request and never remove it; on a run-long signal that is one leaked listener
 * (and request controller) per provider call, so each call gets its own short-lived signal.
 */
export function linkedSignal(parent: AbortSignal): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const follow = (): void => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, dispose: () => parent.removeEventListener('abort', follow) };
}
