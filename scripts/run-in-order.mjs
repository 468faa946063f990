// `node --test FILE...` sorts the files it is given; this runs them through node:test's run() in the
// order given instead (scripts/test-order.mjs: the longest first), with the same reporter and exit code.
// Usage (from scripts/run-tests.mjs): node [flags for every test process] scripts/run-in-order.mjs --concurrency=N --file-timeout=MS FILE...
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';

const option = (name) => Number(process.argv.slice(2).find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3));
const files = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const tests = run({ files, concurrency: option('concurrency'), timeout: option('file-timeout') });
tests.on('test:fail', (failure) => {
  if (!failure.todo) process.exitCode = 1;
});
// As `node --test` chooses: spec on a terminal, TAP otherwise.
tests.compose(process.stdout.isTTY ? new spec() : tap).pipe(process.stdout);
