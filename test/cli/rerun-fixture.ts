// The run the time-travel CLI tests branch from: a loop that must take the same path again after a restore.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { attractorSync as attractor } from './attractor-sync';

/**
 * `attempt` appends a line to log.txt and prints the count; `check` routes back to it until three
 * lines are there. The routing reads the context (`tool.last_line`) and the count reads the file, so
 * a branch that restored only one of them would take another path.
 */
export const pipeline = String.raw`digraph r {
  start [shape=Mdiamond]
  done [shape=Msquare]
  attempt [shape=parallelogram, tool_command="echo try >> log.txt && wc -l < log.txt"]
  check [shape=diamond]
  never [shape=parallelogram, tool_command="echo never"]
  start -> attempt -> check
  check -> attempt [condition="context.tool.last_line=1"]
  check -> attempt [condition="context.tool.last_line=2"]
  check -> never [condition="context.tool.last_line=99"]
  check -> done
  never -> done
}`;

export function ranWorkspace(env?: NodeJS.ProcessEnv): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-rerun-'));
  fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
  const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run'], env);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), 'try\ntry\ntry\n');
  return dir;
}

interface Trace {
  readonly records: readonly { readonly node_id: string; readonly tool_output?: string }[];
}

export function tracedNodes(dir: string, run: string): string[] {
  const trace = attractor(dir, ['trace', run, '--json']);
  assert.equal(trace.status, 0, trace.stderr);
  return (JSON.parse(trace.stdout) as Trace).records.map((r) => r.node_id);
}

