// The pipeline the Restate tests run: two tool nodes around a human gate.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call } from '../server/serve-harness';
import { ensureTestBundle } from '../test-bundle';
import { startCluster, type Cluster } from './restate-cluster';

export const GATED_PIPELINE = `digraph gated {
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="echo prepare >> steps.log"]
  review [shape=hexagon, label="Ship it?"]
  ship [shape=parallelogram, tool_command="echo ship >> steps.log"]
  exit [shape=Msquare]
  start -> prepare -> review
  review -> ship [label="[Y] Yes"]
  review -> exit [label="[N] No"]
  ship -> exit
}
`;

/** A Restate cluster over a fresh directory whose `shared/` holds the gated pipeline, for `attractor serve --on` to submit it. */
export interface GatedCluster {
  readonly dir: string;
  /** The root serve runs in: gated.dot, the runs' working directories and the logs root. */
  readonly shared: string;
  readonly cluster: Cluster;
}

export async function startGatedCluster(prefix: string): Promise<GatedCluster> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  fs.writeFileSync(path.join(shared, 'gated.dot'), GATED_PIPELINE);
  return { dir, shared, cluster: await startCluster(path.join(ensureTestBundle(), 'cli.js'), dir, 1) };
}

/** Submits the gated pipeline to the server at `url`, in a working directory of its own. */
export async function submitGated(url: string, shared: string): Promise<{ id: string; cwd: string }> {
  const cwd = fs.mkdtempSync(path.join(shared, 'run-'));
  const reply = await call(`${url}/pipelines`, { body: { path: path.join(shared, 'gated.dot'), cwd } });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return { id: reply.body.id as string, cwd };
}
