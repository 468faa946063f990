import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as restate from '@restatedev/restate-sdk';
import type { StepEngine } from './durable-step';
import { attractorWorkflow } from './workflow';

export interface ServedWorker {
  readonly port: number;
  /** Registers `uri` (this worker, or the load balancer in front of the workers) with Restate's admin API. */
  register(admin: URL, uri: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The engine's workflow on an HTTP/2 endpoint (Restate's service protocol), bound to host:port. With
 * `identityKeys` (Restate's request identity public keys) a request not signed by one is refused.
 */
export async function serveWorker(engine: StepEngine, at: { readonly host: string; readonly port: number }, identityKeys: readonly string[] = []): Promise<ServedWorker> {
  const endpoint = restate.endpoint().bind(attractorWorkflow(engine));
  if (identityKeys.length > 0) endpoint.withIdentityV1(...identityKeys);
  const server = http2.createServer(endpoint.http2Handler());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    register: (admin, uri) => registerDeployment(admin, uri),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function registerDeployment(admin: URL, uri: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(new URL('deployments', admin), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ uri }) });
  } catch (error) {
    throw new Error(`cannot reach Restate's admin API at ${admin.origin}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`, { cause: error });
  }
  if (!response.ok) throw new Error(`Restate refused to register ${uri}: ${response.status} ${await response.text()}`);
}
