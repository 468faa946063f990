// What a test file started does not outlive it. `node --test` ends a file that overruns its bound
// with a SIGTERM to the file's process alone: the servers, workers, browsers and runs it started (in
// its process group or in their own) were left running, taking the CPU of the files after it.
//
// Loaded into every test process (`--import`), this module marks the file's process in its
// environment, which whatever it starts inherits (ATTRACTOR_TEST_FILE=<runner pid>:<pid>.<start
// time>), and kills the file's process tree when the process exits. The runner (scripts/run-tests.mjs)
// samples the process tree every second: every process under a test file's process, or carrying its
// mark, belongs to that file; once the file's process is gone, by whatever means (an end, a failure,
// the bound's SIGTERM, a crash), what belongs to it is killed with its process group. Only a process
// started with an environment of its own and reparented before any sample or the exit saw it under
// the file escapes: nothing on Linux names its origin then.
import fs from 'node:fs';
import { clearInterval, setInterval } from 'node:timers';

const MARK = 'ATTRACTOR_TEST_FILE';
const SAMPLE_MS = 1000;

/** State, parent, process group and start time (clock ticks since boot) of `pid`, or undefined once gone. */
function stat(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the parenthesised command name: state (3), ppid (4), pgrp (5), ..., starttime (22).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], parent: Number(fields[1]), group: Number(fields[2]), start: fields[19] };
}

/** The live (not zombie) processes: pid → stat. */
function processes() {
  const live = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const found = stat(Number(entry));
    if (found && found.state !== 'Z') live.set(Number(entry), found);
  }
  return live;
}

/** The test file of `runner` a process was marked by, from its environment at exec ("<pid>.<start>"), if any. */
function markOf(pid, runner) {
  try {
    const variable = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((entry) => entry.startsWith(`${MARK}=${runner}:`));
    return variable?.slice(variable.indexOf(':') + 1);
  } catch {
    return undefined;
  }
}

// In a test file's own process (node --test sets NODE_TEST_CONTEXT; a process the file forks inherits it and the mark).
if (process.env.NODE_TEST_CONTEXT !== undefined && process.env[MARK] === undefined) {
  process.env[MARK] = `${process.ppid}:${process.pid}.${stat(process.pid)?.start}`;
  // A file that ends (passed or failed) kills its tree at once, with what has an environment of its own.
  process.on('exit', () => {
    const live = processes();
    const descends = (pid) => {
      for (let up = live.get(pid)?.parent; up !== undefined && up > 1; up = live.get(up)?.parent) if (up === process.pid) return true;
      return false;
    };
    for (const [pid, found] of live) if (descends(pid)) killWithGroup(pid, found);
  });
}

/** The environment for a `node --test` runner: a test process's own marks are not inherited by the files it runs. */
export function runnerEnvironment() {
  const { [MARK]: _mark, NODE_TEST_CONTEXT: _context, ...environment } = process.env;
  return environment;
}

/**
 * Watches the test files that `runner` (the `node --test` process) starts, and kills what each one
 * started once it is gone. `stop()` ends the watch, kills whatever any file left and waits until it has died.
 */
export function reapTestFiles(runner) {
  /** "<pid>.<start>" of a test file's process → its pid. */
  const files = new Map();
  /** "<pid>.<start>" of a process → the file it belongs to. */
  const owned = new Map();
  /** Processes outside every file's tree whose environment was read: "<pid>.<start>" → mark or undefined. */
  const marks = new Map();

  /** Returns the processes it killed ("<pid>.<start>"). */
  function sample(allEnded) {
    const killed = [];
    const live = processes();
    const idOf = (pid) => `${pid}.${live.get(pid)?.start}`;
    for (const [pid, found] of live) if (found.parent === runner && !allEnded) files.set(idOf(pid), pid);
    for (const [pid] of live) {
      if (pid === runner || files.has(idOf(pid))) continue;
      const id = idOf(pid);
      let file;
      for (let up = live.get(pid)?.parent; up !== undefined && up > 1 && file === undefined; up = live.get(up)?.parent) {
        if (files.has(idOf(up))) file = idOf(up);
      }
      if (file === undefined && !owned.has(id)) {
        if (!marks.has(id)) marks.set(id, markOf(pid, runner));
        file = marks.get(id);
        if (file !== undefined && !files.has(file)) files.set(file, Number(file.split('.')[0]));
      }
      if (file !== undefined) owned.set(id, file);
    }
    for (const [file, pid] of files) {
      if (!allEnded && idOf(pid) === file) continue;
      files.delete(file);
      for (const [id, owner] of owned) {
        if (owner !== file) continue;
        owned.delete(id);
        const [member] = id.split('.').map(Number);
        if (idOf(member) !== id) continue; // gone, or its pid taken by another process
        killWithGroup(member, live.get(member));
        killed.push(id);
      }
    }
    for (const id of marks.keys()) if (idOf(Number(id.split('.')[0])) !== id) marks.delete(id);
    return killed;
  }

  const timer = setInterval(() => sample(false), SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      awaitGone(sample(true));
    },
  };
}

const GONE_WAIT_MS = 5000;

/**
 * Waits (at most 5 s) until every process of `killed` ("<pid>.<start>") has died: a process sent
 * SIGKILL runs on until the kernel schedules it to die, which on a loaded machine is not at once.
 */
function awaitGone(killed) {
  const deadline = Date.now() + GONE_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const running = (id) => {
    const found = stat(Number(id.split('.')[0]));
    return found !== undefined && found.state !== 'Z' && id.endsWith(`.${found.start}`);
  };
  while (killed.some(running) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 5);
}

/** Kills `pid` and, when it leads a group of its own (started detached), everything in that group: never the runner's group. */
function killWithGroup(pid, found) {
  if (found.group === pid) kill(-pid);
  kill(pid);
}

function kill(target) {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
