// The order the runner hands the test files to node:test (scripts/run-in-order.mjs), which starts
// them in that order as slots free up: the longest first (longest-processing-time-first scheduling),
// so that no long file starts last and holds the run's tail alone. The lengths are the wall seconds
// of a measured run (scripts/test-durations.json); record them again from a probe file with
// `node scripts/test-order.mjs --record=PROBE` (docs/testing.md). A file named there that no
// longer exists stops the run, so the record cannot quietly go stale.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const DURATIONS = path.join(import.meta.dirname, 'test-durations.json');
const RECORD_AGAIN = 'record it again: node scripts/run-tests.mjs --probe=PROBE, then node scripts/test-order.mjs --record=PROBE';

/** `files` (every test file), the longest measured first; a file not measured yet before them all (first costs a short file little, last costs a long one its whole length); ties as given. */
export function longestFirst(files) {
  const seconds = JSON.parse(fs.readFileSync(DURATIONS, 'utf8'));
  const gone = Object.keys(seconds).filter((file) => !files.includes(file));
  if (gone.length > 0) throw new Error(`scripts/test-durations.json names test files that do not exist (${gone.join(', ')}): remove them from it, or ${RECORD_AGAIN}`);
  const length = (file) => seconds[file] ?? Infinity;
  return [...files].sort((a, b) => (length(a) === length(b) ? 0 : length(a) > length(b) ? -1 : 1));
}

/** Each file's wall seconds from a probe file (scripts/test-probe.mjs), as the compiled files name them. */
function recordDurations(probe) {
  const seconds = {};
  for (const line of fs.readFileSync(probe, 'utf8').split('\n').filter(Boolean)) {
    const { file, wall } = JSON.parse(line);
    seconds[file.replace(/\.js$/, '.ts')] = Math.round(wall * 10) / 10;
  }
  const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
  fs.writeFileSync(DURATIONS, `${JSON.stringify(sorted, null, 1)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const probe = process.argv.slice(2).find((arg) => arg.startsWith('--record='))?.slice('--record='.length);
  if (probe === undefined) {
    console.error(`usage: node scripts/test-order.mjs --record=PROBE (${RECORD_AGAIN})`);
    process.exit(2);
  }
  recordDurations(probe);
}
