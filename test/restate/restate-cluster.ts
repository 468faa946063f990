// A team's setup on one machine, for the distributed test and bench: restate-server (from
// scripts/ensure-restate-server.sh), `attractor worker` processes, and an L4 balancer in front of them
// (Restate registers one URI per deployment; tcp-balancer.ts stands in for HAProxy's `mode tcp`).
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { processesOfGroup } from '../processes';
import { startTcpBalancer, type TcpBalancer } from './tcp-balancer';

const root = path.resolve(__dirname, '..', '..');
const READY_MS = 60_000;

export interface Cluster {
  /** Restate's ingress, as `run --on` takes it. */
  readonly on: string;
  readonly ingress: URL;
  /** Restate's admin API. */
  readonly admin: URL;
  readonly workers: readonly ClusterProcess[];
  /** Starts one more worker on `port` (a killed worker's, say), registered as the others are; resolves once it serves. */
  startWorker(name: string, port: number): Promise<ClusterProcess>;
  stop(): void;
}

interface ClusterProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** kill -9 of its whole process group, as a machine dying does. */
  kill9(): void;
  /** kill -9 of its own pid alone, as an OOM kill or a crashed Node does: what it started must go with it. */
  killPid9(): void;
  readonly port?: number;
  /** The processes of its group now (a worker and the Node 24 child it re-runs itself under). */
  pids(): number[];
}

export interface ClusterOptions {
  /** More options for every `attractor worker` (e.g. `--sandbox off`). */
  readonly workerArgs?: readonly string[];
  /** More environment for every worker (e.g. its run lock's lease). */
  readonly workerEnv?: Readonly<Record<string, string>>;
  /** A command each worker runs under, by its name (e.g. bwrap with a pid namespace of its own: another host). */
  readonly wrapWorker?: (name: string) => readonly string[];
  /** More environment for restate-server (e.g. its request identity key). */
  readonly restateEnv?: Readonly<Record<string, string>>;
  /** The balancer in front of the workers' ports (default: tcp-balancer.ts). */
  readonly balance?: (workerPorts: readonly number[]) => Promise<TcpBalancer>;
}

export async function startCluster(cli: string, dir: string, workerCount: number, { workerArgs = [], workerEnv = {}, wrapWorker = () => [], restateEnv = {}, balance = startTcpBalancer }: ClusterOptions = {}): Promise<Cluster> {
  const restateServer = execFileSync(path.join(root, 'scripts', 'ensure-restate-server.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const [fabric, ingress, admin, pgsql, ...workerPorts] = await freePorts(4 + workerCount);
  const processes: ClusterProcess[] = [];
  let balancer: TcpBalancer | undefined;
  const stop = () => {
    for (const p of processes) p.kill9();
    balancer?.close();
  };
  try {
    const restate = launch(processes, 'restate-server', restateServer, ['--base-dir', path.join(dir, 'restate-data'), '--node-name', 'attractor-test'], dir, {
      RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${pgsql}`,
      ...restateEnv,
    });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${admin}/health`).catch(() => undefined))?.ok === true, restate, 'restate-server to answer /health');
    balancer = await balance(workerPorts);
    const advertised = `http://127.0.0.1:${balancer.port}`;
    const launchWorker = (name: string, port: number) => {
      const [command = process.execPath, ...args] = [...wrapWorker(name), process.execPath, cli, 'worker', '--restate', `http://127.0.0.1:${admin}`, '--port', String(port), '--advertise', advertised, ...workerArgs];
      return { ...launch(processes, name, command, args, dir, workerEnv), port };
    };
    const serving = async (worker: ClusterProcess) => {
      await waitFor(() => worker.output().includes('attractor worker: serving'), worker, `${worker.name} to register`);
      return worker;
    };
    const workers = workerPorts.map((port, i) => launchWorker(`worker${i + 1}`, port));
    for (const worker of workers) await serving(worker);
    const startWorker = (name: string, port: number) => serving(launchWorker(name, port));
    return { on: `restate://127.0.0.1:${ingress}`, ingress: new URL(`http://127.0.0.1:${ingress}/`), admin: new URL(`http://127.0.0.1:${admin}/`), workers, startWorker, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

function launch(processes: ClusterProcess[], name: string, command: string, args: readonly string[], cwd: string, env: Record<string, string>): ClusterProcess {
  // Its own process group: kill -9 takes the worker and the Node 24 child it re-runs itself under.
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const process_: ClusterProcess = {
    name,
    child,
    output: () => output,
    pids: () => (child.pid === undefined ? [] : processesOfGroup(child.pid)),
    killPid9: () => child.kill('SIGKILL'),
    kill9: () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
  processes.push(process_);
  return process_;
}

async function waitFor(ready: () => boolean | Promise<boolean>, owner: ClusterProcess, what: string): Promise<void> {
  const deadline = Date.now() + READY_MS;
  while (!(await ready())) {
    if (owner.child.exitCode !== null || owner.child.signalCode !== null) throw new Error(`${owner.name} exited while waiting for ${what}:\n${owner.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${owner.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `count` ports free now, for processes that will bind them later. Taken below the kernel's ephemeral
 * range, at random: a port the kernel handed out for `listen(0)` or an outgoing connection can be
 * handed out again, to another test file's cluster starting at the same moment, before ours binds it.
 */
export async function freePorts(count: number): Promise<number[]> {
  const [ephemeralLow = 32_768] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const low = 10_000;
  const high = Math.max(ephemeralLow, low + 1_000);
  const ports = new Set<number>();
  while (ports.size < count) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (!ports.has(port) && (await bindable(port))) ports.add(port);
  }
  return [...ports];
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
