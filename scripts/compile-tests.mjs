// Compiles every test file once, with esbuild, into one CommonJS bundle per file under
// .test-build/<key>/ (the key hashes the build options and the contents of every file the bundles
// were built from), so that `npm test` runs plain Node instead of starting tsx in every test process
// (0.75 s of CPU a file against 0.17 s: docs/testing.md). An unchanged checkout reuses the last build.
// Each module keeps its own location: `__dirname`, `__filename` and `import.meta.url|dirname|filename`
// are the .ts file's, as under tsx, so fixtures found relative to a test still resolve; source maps
// point failures at the .ts lines (run with --enable-source-maps). Packages stay external and load
// from node_modules at run time, as under tsx.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const buildRoot = path.join(root, '.test-build');
/** The last build of one set of test files (the suite's, or the runner's own test's fixtures). */
const statePath = (files) => path.join(buildRoot, `state-${crypto.createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 8)}.json`);
/** A build no run has used for this long is removed when another is made. */
const STALE_MS = 3_600_000;

/** @returns {esbuild.Plugin} */
const ownLocation = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      const dirname = path.dirname(args.path);
      const replaced = source
        .replaceAll('import.meta.dirname', JSON.stringify(dirname))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      // On the first line, so that the source map's lines stay the file's.
      const declared = /\b__(dirname|filename)\b/.test(replaced) ? `const __dirname = ${JSON.stringify(dirname)}, __filename = ${JSON.stringify(args.path)}; ` : '';
      return { contents: declared + replaced, loader: 'ts' };
    });
  },
};

const options = (files, outdir) => ({
  entryPoints: files.map((file) => path.join(root, file)),
  absWorkingDir: root,
  outbase: root,
  outdir,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  plugins: [ownLocation],
});

/** The key of a build: this script, esbuild's version, the entry points and every input's content. */
function keyOf(files, inputs) {
  const hash = crypto.createHash('sha256');
  hash.update(fs.readFileSync(import.meta.filename));
  hash.update(`\0${esbuild.version}\0${files.join('\n')}\0`);
  for (const input of inputs) {
    hash.update(`${input}\0`);
    hash.update(fs.readFileSync(path.join(root, input)));
  }
  return hash.digest('hex').slice(0, 16);
}

function readState(files) {
  try {
    return JSON.parse(fs.readFileSync(statePath(files), 'utf8'));
  } catch {
    return undefined;
  }
}

/** The key of the last build if nothing it was built from has changed since. */
function reusableKey(files) {
  const state = readState(files);
  if (!state) return undefined;
  try {
    const key = keyOf(files, state.inputs);
    return key === state.key && fs.existsSync(path.join(buildRoot, key, '.complete')) ? key : undefined;
  } catch {
    return undefined; // an input is gone
  }
}

function writeAtomically(file, text) {
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}

function removeStaleBuilds(keep) {
  for (const entry of fs.readdirSync(buildRoot)) {
    const full = path.join(buildRoot, entry);
    if (entry === keep || entry.startsWith('state')) continue;
    const pid = /^tmp-(\d+)$/.exec(entry)?.[1];
    const stale = pid ? !isAlive(Number(pid)) : Date.now() - fs.statSync(full).mtimeMs > STALE_MS;
    if (stale) fs.rmSync(full, { recursive: true, force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Compiles `files` (paths relative to the repository, sorted) unless an unchanged build exists.
 * @returns {Promise<{ outdir: string, compiled: (file: string) => string, built: boolean }>}
 */
export async function compileTests(files) {
  fs.mkdirSync(buildRoot, { recursive: true });
  let key = reusableKey(files);
  const built = key === undefined;
  if (built) {
    const temporary = path.join(buildRoot, `tmp-${process.pid}`);
    fs.rmSync(temporary, { recursive: true, force: true });
    const result = await esbuild.build(options(files, temporary));
    const inputs = Object.keys(result.metafile.inputs).map((input) => path.relative(root, path.resolve(root, input))).sort();
    key = keyOf(files, inputs);
    fs.writeFileSync(path.join(temporary, '.complete'), '');
    try {
      fs.renameSync(temporary, path.join(buildRoot, key));
    } catch {
      fs.rmSync(temporary, { recursive: true, force: true }); // another run made the same build
    }
    writeAtomically(statePath(files), JSON.stringify({ key, inputs }));
    removeStaleBuilds(key);
  }
  const outdir = path.join(buildRoot, key);
  const now = new Date();
  fs.utimesSync(outdir, now, now); // in use: not stale
  return { outdir, built, compiled: (file) => path.join(outdir, file.replace(/\.ts$/, '.js')) };
}
