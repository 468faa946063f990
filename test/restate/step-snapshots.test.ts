// Issue 30, item 8: a worker's durable steps cost in workspace snapshots what the same node visits cost
// in one local walk (the run's snapshot store is kept from one step to the next on the same worker),
// and a run whose steps move between workers still records every visit's files right. The steps are
// taken as a worker takes them (advanceRun, without Restate); git runs through a wrapper that writes
// each call's subcommand to a ledger.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { KeptWorkspaceStores } from '../../engine/runtime/kept-workspace-stores';
import { ScriptedBackend } from '../../engine/runtime/scripted';
import { namedSandbox } from '../../engine/model/sandbox-setting';
import { advanceRun, type StepEngine } from '../../restate/durable-step';
import { ensureTestBundle } from '../test-bundle';

const exec = promisify(execFile);

/** Two visits that change no file, then one that does. */
const QUIET_THEN_WRITE = `digraph steps {
  start [shape=Mdiamond]
  look [shape=parallelogram, tool_command="cat README"]
  again [shape=parallelogram, tool_command="cat README"]
  write [shape=parallelogram, tool_command="echo written > out.txt"]
  exit [shape=Msquare]
  start -> look -> again -> write -> exit
}
`;

/** Every visit changes n.txt. */
const COUNTING = `digraph counting {
  start [shape=Mdiamond]
  one [shape=parallelogram, tool_command="echo 1 > n.txt"]
  two [shape=parallelogram, tool_command="echo 2 > n.txt"]
  three [shape=parallelogram, tool_command="echo 3 > n.txt"]
  exit [shape=Msquare]
  start -> one -> two -> three -> exit
}
`;

let dir: string;
let cli: string;

before(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-step-snapshots-')));
  cli = path.join(ensureTestBundle(), 'cli.js');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A `git` that writes its subcommand to a ledger, then runs the real one; `bin` goes first on PATH. */
function gitLedger(name: string): { readonly bin: string; readonly commands: () => string[] } {
  const bin = path.join(dir, `${name}-bin`);
  const ledger = path.join(dir, `${name}.ledger`);
  fs.mkdirSync(bin);
  const real = ['/usr/bin/git', '/usr/local/bin/git', '/bin/git'].find((candidate) => fs.existsSync(candidate)) ?? 'git';
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${ledger}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const subcommand = (line: string): string => {
    const words = line.split(' ');
    for (let i = 0; i < words.length; i++) {
      if (words[i] === '--no-pager') continue;
      if (words[i] === '-c') {
        i++;
        continue;
      }
      return words[i] ?? '';
    }
    return '';
  };
  return { bin, commands: () => (fs.existsSync(ledger) ? fs.readFileSync(ledger, 'utf8').split('\n').filter(Boolean).map(subcommand) : []) };
}

/**
 * A workspace with one file, made old enough before any snapshot of it that no stat in it is "racy"
 * (changed as a snapshot began): its `.attractor-runs/`, where the engine keeps its working-directory
 * lock, is made now rather than by the first walk.
 */
function workspace(name: string): string {
  const cwd = path.join(dir, name);
  fs.mkdirSync(path.join(cwd, '.attractor-runs'), { recursive: true });
  fs.writeFileSync(path.join(cwd, 'README'), 'a workspace\n');
  return cwd;
}

function worker(): StepEngine {
  return { backend: new ScriptedBackend({ llm: {}, human: {} }), runner: { version: 'test', commit: 'test', provider: 'scripted' }, sandbox: namedSandbox('off'), workspaceStores: new KeptWorkspaceStores() };
}

/** Takes the run's steps one after another, step N on `workers[N % workers.length]`, to its end. */
async function walkInSteps(runId: string, source: string, cwd: string, logsRoot: string, workers: readonly StepEngine[]): Promise<void> {
  for (let step = 0; ; step++) {
    const engine = workers[step % workers.length] as StepEngine;
    const outcome = await advanceRun(runId, { source, cwd, logsRoot, params: {} }, engine, `gate-${step}`, {}, new AbortController().signal);
    if (outcome.kind === 'finished') {
      assert.equal(outcome.status, 'success');
      return;
    }
    assert.equal(outcome.kind, 'advanced', JSON.stringify(outcome));
  }
}

test("a worker's steps run git as often as a local walk of the same run: a step that changes no file runs none", async () => {
  const local = workspace('local');
  const stepped = workspace('stepped');
  const localGit = gitLedger('local');
  const dot = path.join(dir, 'steps.dot');
  fs.writeFileSync(dot, QUIET_THEN_WRITE);
  await exec(process.execPath, [cli, 'run', dot, '--cwd', local, '--logs-root', path.join(dir, 'local-run'), '--sandbox', 'off'], { env: { ...process.env, PATH: `${localGit.bin}${path.delimiter}${process.env.PATH ?? ''}` } });

  const workerGit = gitLedger('worker');
  const pathBefore = process.env.PATH;
  process.env.PATH = `${workerGit.bin}${path.delimiter}${pathBefore ?? ''}`;
  try {
    await walkInSteps('stepped', QUIET_THEN_WRITE, stepped, path.join(dir, 'stepped-run'), [worker()]);
  } finally {
    process.env.PATH = pathBefore;
  }
  assert.ok(localGit.commands().includes('write-tree'), `the local walk took snapshots: ${localGit.commands().join(', ')}`);
  assert.deepEqual(workerGit.commands(), localGit.commands());
  const diff = await exec(process.execPath, [cli, 'diff', path.join(dir, 'stepped-run'), 'write']);
  assert.match(diff.stdout, /^write@1 .*\n\s+A out\.txt\n[^]*\n\+written$/m);
});

test('a run whose steps alternate between two workers records each visit against the snapshot the other left', async () => {
  const cwd = workspace('alternating');
  const logsRoot = path.join(dir, 'alternating-run');
  await walkInSteps('alternating', COUNTING, cwd, logsRoot, [worker(), worker()]);
  const diff = async (node: string) => (await exec(process.execPath, [cli, 'diff', logsRoot, node])).stdout;
  assert.match(await diff('one'), /^one@1 .*\n\s+A n\.txt\n[^]*\n\+1$/m);
  assert.match(await diff('two'), /^two@1 .*\n\s+M n\.txt\n[^]*\n-1\n\+2$/m);
  assert.match(await diff('three'), /^three@1 .*\n\s+M n\.txt\n[^]*\n-2\n\+3$/m);
});
