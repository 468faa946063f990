import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionOptions } from './run-command';
import { execution, integerOption } from './run-command';

export interface WorkerCommandOptions extends ExecutionOptions {
  /** Restate's admin URL, where the worker registers its deployment. */
  readonly restate: string;
  readonly port: string;
  readonly host: string;
  /** The URL Restate reaches the workers at (a load balancer in front of several); default http://HOST:PORT. */
  readonly advertise?: string;
  /** Restate's request identity public keys (`publickeyv1_…`): the worker then refuses unsigned requests. */
  readonly identityKey?: string[];
}

/** The Restate SDK needs Node ≥ 22 (Promise.withResolvers); the rest of the CLI runs on Node 20. */
const SDK_NODE_MAJOR = 22;

/** `attractor worker`: serves the engine as Restate's `attractor` workflow until SIGINT or SIGTERM. */
export async function workerCommand(options: WorkerCommandOptions, env: NodeJS.ProcessEnv): Promise<number> {
  if (Number(process.versions.node.split('.')[0]) < SDK_NODE_MAJOR) return rerunUnderNode24(env);
  const port = integerOption('--port', options.port, 0, 65_535);
  const admin = adminUrl(options.restate);
  const { backend, runner, defaultMaxParallel, sandbox } = execution(options, env);
  const { serveWorker } = await import('../restate');
  const identityKeys = options.identityKey ?? [];
  for (const key of identityKeys) if (!/^publickeyv1_[1-9A-HJ-NP-Za-km-z]+$/.test(key)) throw new Error(`--identity-key expects Restate's publickeyv1_… form, got "${key}"`);
  const worker = await serveWorker({ backend, runner, sandbox, ...(defaultMaxParallel !== undefined ? { defaultMaxParallel } : {}) }, { host: options.host, port }, identityKeys);
  const advertised = options.advertise ?? `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${worker.port}`;
  try {
    await worker.register(admin, advertised);
  } catch (error) {
    await worker.close();
    throw error;
  }
  process.stderr.write(`attractor worker: serving the attractor workflow on ${options.host}:${worker.port}, registered with ${admin.origin} as ${advertised}${identityKeys.length > 0 ? `, accepting only requests signed by ${identityKeys.length} identity key(s)` : ''}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await worker.close();
  return 0;
}

function adminUrl(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Said below.
  }
  throw new Error(`--restate expects Restate's admin URL (http://HOST:9070), got "${text}"`);
}

/**
 * Runs this same command under the Node 24 binary that the checkout's scripts/ensure-node24.sh
 * installs once, and exits as it does. The two are one worker: SIGINT and SIGTERM are forwarded, and
 * the child gets SIGKILL when this process dies however it dies (`setpriv --pdeathsig`, util-linux's
 * PR_SET_PDEATHSIG launcher), so a worker killed by its pid never leaves the real one serving.
 */
async function rerunUnderNode24(env: NodeJS.ProcessEnv): Promise<number> {
  const script = findUp(__dirname, path.join('scripts', 'ensure-node24.sh'));
  if (!script) {
    throw new Error(`attractor worker needs Node ${SDK_NODE_MAJOR} or later (the Restate SDK uses Promise.withResolvers), and this is Node ${process.versions.node}: run it with Node ${SDK_NODE_MAJOR}+ (e.g. npx -p node@24 node dist/cli.js worker …)`);
  }
  const node24 = execFileSync(script, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const argv = [node24, ...process.execArgv, ...process.argv.slice(1)];
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => fs.existsSync(file));
  const [file = node24, ...args] = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', ...argv] : argv;
  const child = spawn(file, args, { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
  });
}

/** `relative` in `start` or the nearest directory above it that has it (dist/ of a checkout, or a test copy of one). */
function findUp(start: string, relative: string): string | undefined {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, relative);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}
