import os from 'node:os';
import path from 'node:path';
import { connectionsWithin, defaultStateDir, isLoopback, loadOrCreateToken, openFileLimit, PipelineServer, QueuedSubmissions, Roots, submissionChecker, type Launcher } from '../server';
import { ingressUrl } from '../host/restate/restate-address';
import { ATTACH_LEASE_SECONDS } from '../host/serve/serve-defaults';
import type { ExecutionOptions } from './run-command';
import { execution, integerOption, secondsOption } from './run-command';
import type { SandboxRequest } from '../engine/model/sandbox-setting';
import { sandboxRequestRefusal } from '../engine/runtime/sandbox';

export interface ServeCommandOptions extends Omit<ExecutionOptions, 'json'> {
  readonly host: string;
  readonly port: string;
  readonly root?: string[];
  readonly logsRoot?: string;
  readonly stateDir?: string;
  readonly tokenFile?: string;
  readonly maxBody: string;
  readonly maxRuns: string;
  readonly maxQueued: string;
  readonly maxConnections?: string;
  readonly attachLease: string;
  /** Restate's ingress (`restate://HOST:PORT`): the workers walk the runs. */
  readonly on?: string;
}

/** `attractor serve`: runs until SIGINT/SIGTERM, then cancels its runs (each keeps a resumable checkpoint) and exits 0. */
/** `env`: the environment with the provider keys, which the CLI keeps out of process.env (credentials.ts). */
export async function serveCommand(options: ServeCommandOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const port = integerOption('--port', options.port, 0, 65_535);
  const maxBodyBytes = integerOption('--max-body', options.maxBody, 1, 1024 ** 3);
  const maxRunning = integerOption('--max-runs', options.maxRuns, 1, 10_000);
  const maxQueued = integerOption('--max-queued', options.maxQueued, 0, 100_000);
  const maxConnections = connectionLimit(options.maxConnections, maxRunning);
  const attachLeaseMs = secondsOption('--attach-lease', options.attachLease, ATTACH_LEASE_SECONDS.min, ATTACH_LEASE_SECONDS.max);
  const roots = new Roots(options.root?.length ? options.root : [process.cwd()]);
  const walkers = options.on === undefined ? walkHere(options, env) : onRestate(options, options.on);
  // Loopback is open to every user of this machine: naming a token file asks for the token there too.
  const secured = !isLoopback(options.host) || options.tokenFile !== undefined;
  const token = secured ? bearerToken(options.tokenFile ?? path.join(os.homedir(), '.config', 'attractor', 'serve-token')) : undefined;
  const logsRoot = path.resolve(options.logsRoot ?? path.join(roots.primary, '.attractor-runs'));
  // The queue outlives the server where only this user writes: never under the logs root or a root.
  const queued = QueuedSubmissions.open(path.resolve(options.stateDir ?? defaultStateDir()), logsRoot, [...roots.dirs, logsRoot]);
  const server = new PipelineServer({
    // The worker's bundle lies beside this one (dist/).
    checker: submissionChecker(path.join(__dirname, 'serve-validation-worker.js')),
    launcher: { roots, logsRoot, walkers, maxRunning, maxQueued, attachLeaseMs, queued },
    ...(token ? { token } : {}),
    maxBodyBytes,
    maxConnections,
  });
  const url = await server.listen({ port, host: options.host });
  process.stdout.write(`attractor serve: listening on ${url} (roots: ${roots.dirs.join(', ')})${walkers.kind === 'restate' ? `, runs go to Restate at ${walkers.ingress.host}` : ''}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}

/** `--max-connections`, or what the process's open-file limit leaves beside the runs (said when that is little). */
function connectionLimit(given: string | undefined, maxRunning: number): number {
  if (given !== undefined) return integerOption('--max-connections', given, 1, 1_000_000);
  const limit = openFileLimit();
  const { cap, short } = connectionsWithin(limit, maxRunning);
  if (short) process.stderr.write(`attractor serve: the open-file limit (${limit}) leaves little room beside ${maxRunning} runs: at most ${cap} connections; raise \`ulimit -n\` or lower --max-runs\n`);
  return cap;
}

/** A served run's commands are confined, all of them, network allowed: the submitter is not the operator. */
const serveSandbox: SandboxRequest = { setting: 'workspace-network', explicit: false };

function walkHere(options: ServeCommandOptions, env: NodeJS.ProcessEnv): Launcher['walkers'] {
  // Fails now, not on the first submission, when --scripted names a bad file or --sandbox cannot be had.
  const { sandbox } = execution(options, env, serveSandbox);
  const refusal = sandboxRequestRefusal(sandbox);
  if (refusal) throw new Error(refusal);
  return { kind: 'here', execution: () => execution(options, env, serveSandbox) };
}

/** The workers have their own backend and defaults: the server takes none. */
function onRestate(options: ServeCommandOptions, on: string): Launcher['walkers'] {
  const local = (['scripted', 'defaultModel', 'defaultProvider', 'maxParallel', 'sandbox'] as const).filter((key) => options[key] !== undefined);
  if (local.length > 0) throw new Error(`--on: the workers walk the runs with their own backend; give ${local.map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} to \`attractor worker\` instead`);
  return { kind: 'restate', ingress: ingressUrl(on) };
}

/** The token of a non-loopback bind: shown once, when it is generated; afterwards it lives only in its file. */
function bearerToken(file: string): string {
  const { token, created } = loadOrCreateToken(path.resolve(file));
  process.stderr.write(created ? `attractor serve: bearer token (stored in ${file}, mode 0600): ${token}\n` : `attractor serve: bearer token from ${file}\n`);
  return token;
}
