// The CLI's command line and start-up, through the bundled `attractor` process: help, version and
// usage errors (exit 2), options reaching the command, and V8's code cache kept between runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync } from './attractor-sync';

const repo = path.resolve(import.meta.dirname, '../..');
const example = path.join(repo, 'examples', 'convergence-loop.dot');
const attractor = (...args: string[]) => attractorSync(repo, args);

describe('attractor command line', () => {
  it('prints its version and help on stdout with exit 0', () => {
    assert.deepEqual(attractor('--version'), { status: 0, signal: null, stdout: '0.1.0\n', stderr: '' });
    const help = attractor('--help');
    assert.equal(help.status, 0);
    for (const command of ['run', 'resume', 'serve', 'worker', 'answer', 'trace', 'diff', 'doctor', 'lint', 'validate']) assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
    const lintHelp = attractor('lint', '--help');
    assert.equal(lintHelp.status, 0);
    assert.match(lintHelp.stdout, /^Usage: attractor lint \[options\] <files\.\.\.>$/m);
    assert.match(lintHelp.stdout, /--strict +fail on warnings too/);
    assert.deepEqual(attractor('help', 'serve').stdout, attractor('serve', '-h').stdout);
    assert.match(attractor('serve', '--help').stdout, /--host <address> +address to bind \(default: "127\.0\.0\.1"\)/);
  });

  it('refuses a wrong command line with exit 2 and a message naming what is wrong', () => {
    const cases: [string[], RegExp][] = [
      [[], /^Usage: attractor/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['lint'], /attractor lint: missing required argument 'files'/],
      [['lint', '--bogus', example], /attractor lint: Unknown option '--bogus'/],
      [['run', '--cwd'], /attractor run: Option '--cwd <value>' argument missing/],
      [['trace', 'a', 'b'], /attractor trace: too many arguments: expected 1, got 2/],
      [['worker'], /attractor worker: required option '--restate <admin-url>' not specified/],
      [['diff', 'run-dir'], /attractor diff: missing required argument 'node'/],
    ];
    for (const [args, message] of cases) {
      const result = attractor(...args);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
    }
  });

  it('hands every file of a variadic argument and each option to the command', () => {
    const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-cli-')), 'broken.dot');
    fs.writeFileSync(broken, 'digraph G { start [shape=Mdiamond]; start -> }');
    const result = attractor('lint', '--json', example, broken);
    assert.equal(result.status, 1);
    const files = new Set((JSON.parse(result.stdout) as { diagnostics: { file: string }[] }).diagnostics.map((d) => d.file));
    assert.deepEqual([...files], [broken]);
    assert.equal(attractor('lint', `--json=${'x'}`, example).status, 2, 'a boolean switch takes no value');
  });
});

describe('attractor compile cache', { skip: typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function' ? 'this Node keeps the compile cache itself (module.enableCompileCache)' : false }, () => {
  const lint = (cacheHome: string) => attractorSync(repo, ['lint', example], { ...process.env, XDG_CACHE_HOME: cacheHome });
  const cacheFiles = (cacheHome: string) => fs.readdirSync(path.join(cacheHome, 'attractor', 'compile-cache', `${process.version}-${process.arch}`)).sort();

  it('keeps the compiled code of the bundles a run loaded, and the next run reads the same output with it', () => {
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-cache-'));
    const first = lint(cacheHome);
    assert.equal(first.status, 0);
    const files = cacheFiles(cacheHome);
    assert.deepEqual(files.map((f) => f.replace(/-\d+-\d+\.v8$/, '')), ['cli-lint', 'cli-main']);
    const written = files.map((f) => fs.statSync(path.join(cacheHome, 'attractor', 'compile-cache', `${process.version}-${process.arch}`, f)).mtimeMs);
    assert.deepEqual(lint(cacheHome), first);
    assert.deepEqual(
      files.map((f) => fs.statSync(path.join(cacheHome, 'attractor', 'compile-cache', `${process.version}-${process.arch}`, f)).mtimeMs),
      written,
      'a cache V8 accepted is not written again',
    );
  });

  it('compiles as usual from a corrupt cache and replaces it', () => {
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-cache-'));
    const first = lint(cacheHome);
    const directory = path.join(cacheHome, 'attractor', 'compile-cache', `${process.version}-${process.arch}`);
    const main = cacheFiles(cacheHome).find((f) => f.startsWith('cli-main-'))!;
    fs.writeFileSync(path.join(directory, main), 'not V8 code');
    assert.deepEqual(lint(cacheHome), first);
    assert.notEqual(fs.readFileSync(path.join(directory, main), 'utf8'), 'not V8 code');
  });

  it('leaves a bundle that imports an ES module to Node, so its import() still works on the next start', () => {
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-cache-'));
    const graphviz = () => {
      const result = attractorSync(repo, ['doctor', '--json'], { ...process.env, XDG_CACHE_HOME: cacheHome });
      return (JSON.parse(result.stdout) as { checks: { name: string; state: string }[] }).checks.find((c) => c.name === 'graphviz')?.state;
    };
    assert.equal(graphviz(), 'ok');
    assert.equal(graphviz(), 'ok');
    assert.deepEqual(cacheFiles(cacheHome).map((f) => f.replace(/-\d+-\d+\.v8$/, '')), ['cli-main']);
  });

  it('never reads code from a cache directory others can write', () => {
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-cache-'));
    const directory = path.join(cacheHome, 'attractor', 'compile-cache', `${process.version}-${process.arch}`);
    fs.mkdirSync(directory, { recursive: true });
    fs.chmodSync(directory, 0o777);
    assert.equal(lint(cacheHome).status, 0);
    assert.deepEqual(fs.readdirSync(directory), []);
  });
});
