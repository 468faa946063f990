import crypto from 'node:crypto';
import path from 'node:path';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';
import { formatDiagnostic } from '../engine/model/diagnostic-format';
import { preparePipeline } from '../engine/prepare';
import { ConsoleInterviewer } from '../engine/runtime/console-interviewer';
import { DurableRunClient } from '../host/restate/restate-client';
import { ingressUrl } from '../host/restate/restate-address';
import { answerBody } from '../host/protocol/serve-api';
import { parseParams } from './run-command';
import { describeRunEnd } from '../engine/runtime/run-status';

export interface RestateRunOptions {
  readonly on: string;
  readonly param?: string[];
  readonly cwd?: string;
  readonly logsRoot?: string;
  readonly detach?: boolean;
  readonly json?: boolean;
  readonly scripted?: string;
  readonly serve?: string;
}

const GATE_POLL_MS = 500;

/**
 * `attractor run --on restate://HOST:PORT`: validates here, submits the run to the workers through
 * Restate's ingress, then (unless --detach) asks its gates on this terminal and waits for its end.
 */
export async function restateRunCommand(file: string, options: RestateRunOptions): Promise<number> {
  if (options.scripted !== undefined || options.serve !== undefined) throw new Error('--on runs on the workers: give --scripted to `attractor worker`, and follow the run from its run directory instead of --serve');
  const ingress = ingressUrl(options.on);
  const params = parseParams(options.param);
  const sourcePath = path.resolve(file);
  const source = readFileChecked(sourcePath, READ_LIMITS.pipeline);
  const prepared = preparePipeline(source, { sourcePath, params, mode: 'validate' });
  const errors = prepared.diagnostics.filter((d) => d.severity === 'error');
  if (!prepared.graph || errors.length > 0) {
    for (const d of prepared.diagnostics) process.stderr.write(`${formatDiagnostic(file, d)}\n`);
    process.stderr.write(`attractor: ${path.basename(file)} has ${errors.length} error(s); the pipeline was not submitted\n`);
    return 2;
  }
  const runId = `${prepared.graph.name || 'pipeline'}-${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}`;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const logsRoot = path.resolve(options.logsRoot ?? path.join(cwd, '.attractor-runs', runId));
  const client = new DurableRunClient(ingress, runId);
  await client.submit({ source, sourcePath, cwd, logsRoot, params });
  process.stderr.write(`submitted ${runId} to ${ingress.host}\nrun directory: ${logsRoot}\n`);
  if (options.detach) {
    process.stdout.write(`${options.json ? JSON.stringify({ run_id: runId, logs_root: logsRoot }) : runId}\n`);
    return 0;
  }
  const ended = new AbortController();
  const gates = answerGatesHere(client, ended.signal);
  try {
    const result = await client.result();
    process.stderr.write(`${describeRunEnd(result.status, result.failureReason)}\nrun directory: ${logsRoot}\n`);
    if (options.json) process.stdout.write(`${JSON.stringify({ status: result.status === 'success' ? 'success' : 'fail', failure_reason: result.failureReason ?? null, logs_root: logsRoot })}\n`);
    return result.status === 'success' ? 0 : 1;
  } finally {
    ended.abort();
    await gates;
  }
}

/** `attractor answer --on restate://HOST:PORT RUN CHOICE`: answers the gate the run waits at. */
export async function answerCommand(runId: string, choice: string, options: { readonly on: string }): Promise<number> {
  const client = new DurableRunClient(ingressUrl(options.on), runId);
  const gate = await client.openGate();
  if (!gate) throw new Error(`the run ${runId} waits at no gate`);
  await client.answer(gate.id, { choice });
  process.stderr.write(`answered ${gate.nodeId}: ${choice}\n`);
  return 0;
}

/** Asks each gate the run opens on this terminal until `signal` aborts (another client may answer first). */
async function answerGatesHere(client: DurableRunClient, signal: AbortSignal): Promise<void> {
  const interviewer = new ConsoleInterviewer();
  const asked = new Set<string>();
  while (!signal.aborted) {
    const gate = await client.openGate().catch(() => null);
    if (gate && !asked.has(gate.id)) {
      asked.add(gate.id);
      const answer = await interviewer.ask(gate, signal);
      if (!signal.aborted) await client.answer(gate.id, answerBody(answer)).catch((error: Error) => process.stderr.write(`attractor: ${error.message}\n`));
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, GATE_POLL_MS);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}
