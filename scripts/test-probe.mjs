// What each test file costs: `node scripts/run-tests.mjs --probe=FILE` loads this module into every
// test process, which appends to FILE, as the process exits, a JSON line with the file, its wall
// time, and the CPU (user + system seconds) of its own process and of the child processes it
// reaped (a child left running, killed after the file ends, is not counted). A file ended by the
// runner's bound writes nothing.
import fs from 'node:fs';
import path from 'node:path';

const PROBE = 'ATTRACTOR_TEST_PROBE';
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

const out = process.env[PROBE];
// Only the test file's own process writes: what it starts does not inherit the variable (the runner
// that starts the test files, loaded with this module too, keeps it for them).
if (out !== undefined && process.env.NODE_TEST_CONTEXT !== undefined) {
  delete process.env[PROBE];
  process.on('exit', () => {
    const text = fs.readFileSync('/proc/self/stat', 'utf8');
    // utime, stime, cutime, cstime: fields 14–17, the 11th–14th after the command name.
    const [user, system, childrenUser, childrenSystem] = text.slice(text.lastIndexOf(')') + 2).split(' ').slice(11, 15).map((ticks) => Number(ticks) / TICKS_PER_SECOND);
    const file = path.relative(process.cwd(), process.argv[1] ?? '').replace(/^\.test-build\/[^/]+\//, '');
    fs.appendFileSync(out, `${JSON.stringify({ file, wall: process.uptime(), cpu: user + system, children: childrenUser + childrenSystem, exitCode: process.exitCode ?? 0 })}\n`);
  });
}
