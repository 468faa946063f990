// kill -9 of the CLI at random moments, resumed until the run finishes, over many runs: what the
// randomized crash test asserts on and what `npm run bench crash` reports.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadCheckpoint, readTrace } from '../../../engine/runtime/run-directory';

export interface CrashFigures {
  /** Pipelines run to the end. */
  readonly runs: number;
  /** CLI processes started (`run` or `resume`). */
  readonly rounds: number;
  readonly kills: number;
  /** Kills that found the run with at least one committed node boundary. */
  readonly killsAfterCommit: number;
  /** Nodes that ran again after a reader had seen them finished. */
  readonly reruns: number;
  /** Temp files left in a run directory: more than the one a kill can interrupt, or any once finished. */
  readonly leftoverTempFiles: readonly string[];
  /** Finished runs whose trace.jsonl does not hold every node once, in order. */
  readonly badTraces: readonly string[];
  /** A `run` or `resume` that ended neither in success nor killed. */
  readonly failures: readonly string[];
}

const CHAIN_LENGTH = 60;
/** A process is killed 300 ms + a random part of this after its start. */
const KILL_WINDOW_MS = 1500;

/** A chain of tool nodes, each logging its id once it runs (the side effect a re-run would repeat) and printing 4 KB into the state. */
function toolChain(): string {
  const ids = Array.from({ length: CHAIN_LENGTH }, (_, i) => `t${i}`);
  const nodes = ids.map((id) => `  ${id} [shape=parallelogram, tool_command="echo ${id} >> ran.log; head -c 4000 /dev/zero | tr '\\\\0' x"]`);
  return ['digraph chain {', '  start [shape=Mdiamond]', '  done [shape=Msquare]', ...nodes, `  start -> ${ids.join(' -> ')} -> done`, '}'].join('\n');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tempFiles(root: string): string[] {
  return fs.existsSync(root) ? fs.readdirSync(root).filter((name) => name.endsWith('.tmp')) : [];
}

function runCounts(cwd: string): Map<string, number> {
  const counts = new Map<string, number>();
  const file = path.join(cwd, 'ran.log');
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  for (const id of lines) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/** Finished, as a reader sees it now: in trace.jsonl or in the checkpoint. */
function finishedNodes(logsRoot: string): Set<string> {
  const committed = fs.existsSync(path.join(logsRoot, 'checkpoint.json')) ? loadCheckpoint(logsRoot).completedNodes : [];
  return new Set([...readTrace(logsRoot).map((record) => record.node_id), ...committed]);
}

/**
 * Runs the chain again and again until `budgetMs` is spent, each process killed (`kill -9` of the
 * CLI's process group) after a random 300–1,800 ms and resumed until the run finishes. The
 * checkpoint is large: a 100 KB parameter and 4 KB of tool output per node live in the state.
 */
export async function crashRounds(cli: string, budgetMs: number): Promise<CrashFigures> {
  const blob = 'b'.repeat(100_000);
  const pipeline = toolChain();
  const expectedTrace = ['start', ...Array.from({ length: CHAIN_LENGTH }, (_, i) => `t${i}`), 'done'];
  const started = Date.now();
  let runs = 0;
  let rounds = 0;
  let kills = 0;
  let killsAfterCommit = 0;
  let reruns = 0;
  const leftoverTempFiles: string[] = [];
  const badTraces: string[] = [];
  const failures: string[] = [];
  while (Date.now() - started < budgetMs) {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-crash-'));
    fs.writeFileSync(path.join(cwd, 'pipeline.dot'), pipeline);
    const logsRoot = path.join(cwd, '.run');
    runs++;
    /** Per node: how often it had run when a reader first saw it finished. */
    const finishedAt = new Map<string, number>();
    // On a loaded machine a process may do nothing in its first 1.8 s: the window widens until kills land after progress.
    let window = KILL_WINDOW_MS;
    for (;;) {
      rounds++;
      // Killed before its first commit, a run has nothing to resume: it starts again.
      const committed = fs.existsSync(path.join(logsRoot, 'checkpoint.json'));
      const args = committed ? ['resume', logsRoot] : ['run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot, '--param', `blob=${blob}`];
      const child = spawn(process.execPath, [cli, ...args], { cwd, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Once the budget is spent, the last run goes on to its end unkilled.
      const killing = Date.now() - started < budgetMs;
      const outcome = killing ? await Promise.race([exited, sleep(300 + Math.random() * window).then(() => 'kill' as const)]) : await exited;
      if (outcome !== 'kill') {
        // Killed after its last commit, the run is finished, and resume says so.
        const finishedBefore = outcome === 2 && /already finished \(success\)/.test(stderr);
        if (outcome !== 0 && !finishedBefore) failures.push(`${args[0]} in ${logsRoot} ended with ${outcome}: ${stderr}`);
        break;
      }
      process.kill(-(child.pid as number), 'SIGKILL');
      await exited;
      kills++;
      if (committed) killsAfterCommit++;
      const temps = tempFiles(logsRoot);
      if (temps.length > 1) leftoverTempFiles.push(`${logsRoot} after a kill: ${temps.join(', ')}`);
      const counts = runCounts(cwd);
      const seenBefore = finishedAt.size;
      for (const id of finishedNodes(logsRoot)) if (!finishedAt.has(id) && counts.has(id)) finishedAt.set(id, counts.get(id) ?? 0);
      window = finishedAt.size > seenBefore ? KILL_WINDOW_MS : window * 2;
    }
    const counts = runCounts(cwd);
    for (const [id, count] of finishedAt) if ((counts.get(id) ?? 0) !== count) reruns++;
    const temps = tempFiles(logsRoot);
    if (temps.length > 0) leftoverTempFiles.push(`finished ${logsRoot}: ${temps.join(', ')}`);
    if (!isDeepStrictEqual(readTrace(logsRoot).map((record) => record.node_id), expectedTrace)) badTraces.push(logsRoot);
    else fs.rmSync(cwd, { recursive: true, force: true });
  }
  return { runs, rounds, kills, killsAfterCommit, reruns, leftoverTempFiles, badTraces, failures };
}
