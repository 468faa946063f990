import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { writeFileAtomic } from '../engine/runtime/atomic-write';

/**
 * V8's compiled code of our own bundles, kept between runs: each bundle in `bundleDirectory` whose
 * name starts with `bundlePrefix` compiles as a `vm.Script` with the bytes of an earlier run, and
 * leaves them when its thread exits, after it ran, so that the functions it called are in them too.
 *
 * - `'once'` (the CLI): the bytes are written only by a run that had none (or whose bytes V8
 *   refused); where Node keeps a cache itself (`module.enableCompileCache`, Node ≥ 22.1) that is
 *   used instead. That halves what `attractor lint` costs beyond Node's own start.
 * - `'growing'` (the language server): the bytes are written again whenever a run compiled more
 *   than it loaded (a session that completed or hovered for the first time, a larger pipeline), and
 *   Node's own cache is not used: it is made as a module compiles, before it runs, and so lacks the
 *   functions a first check or completion spends most of its time compiling.
 *
 * The cache lives in the user's cache directory (mode 0700; code is only read from a directory this
 * user owns), one file per bundle, named by the bundle's size and mtime: a rebuilt bundle gets a new
 * file. Any failure only means compiling as usual.
 */

type ModuleWithCompile = { prototype: { _compile(content: string, filename: string): unknown } };
interface LoadedBundle {
  readonly file: string;
  readonly script: vm.Script;
  /** The size of the bytes V8 took, 0 when there were none or it refused them. */
  readonly accepted: number;
}

export function enableCompileCache(bundleDirectory: string, bundlePrefix: string, mode: 'once' | 'growing'): void {
  const nodeCache = (Module as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (mode === 'once' && nodeCache) {
    nodeCache();
    return;
  }
  const directory = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : ownCacheDirectory();
  if (directory === undefined) return;
  const loaded: LoadedBundle[] = [];
  const loader = (Module as unknown as ModuleWithCompile).prototype;
  const compile = loader._compile;
  loader._compile = function (this: Module, content: string, filename: string) {
    if (!isCacheable(filename, content)) return compile.call(this, content, filename);
    const file = cacheFileOf(directory, filename);
    const cachedData = file === undefined ? undefined : readOrUndefined(file);
    const script = new vm.Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (file !== undefined) loaded.push({ file, script, accepted: cachedData && script.cachedDataRejected !== true ? cachedData.length : 0 });
    const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => unknown;
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, path.dirname(filename));
  };
  /**
   * Our own bundles, but not those that load an ES module with `import()` (the Graphviz WASM):
   * code in a vm.Script can only do that through Node's experimental loader hooks on Node 20.
   */
  function isCacheable(filename: string, content: string): boolean {
    return path.dirname(filename) === bundleDirectory && path.basename(filename).startsWith(bundlePrefix) && !content.includes('import(');
  }
  process.once('exit', () => {
    for (const { file, script, accepted } of loaded) {
      if (mode === 'once' && accepted > 0) continue;
      try {
        const bytes = script.createCachedData();
        if (bytes.length <= accepted) continue;
        writeFileAtomic(file, bytes, false, 0o600);
        removeOlderCaches(file);
      } catch {
        // A cache that cannot be written is only a slower next start.
      }
    }
  });
}

function ownCacheDirectory(): string | undefined {
  const root = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const directory = path.join(root, 'attractor', 'compile-cache', `${process.version}-${process.arch}`);
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stat = fs.lstatSync(directory);
    const owned = stat.isDirectory() && (typeof process.getuid !== 'function' || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
    return owned ? directory : undefined;
  } catch {
    return undefined;
  }
}

function cacheFileOf(directory: string, bundle: string): string | undefined {
  try {
    const stat = fs.statSync(bundle);
    return path.join(directory, `${path.basename(bundle, '.js')}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`);
  } catch {
    return undefined;
  }
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Caches of other builds of the same bundle kept beside the one just written: a few checkouts (or
 * installed versions) in use at once each keep theirs instead of removing one another's.
 */
const KEPT_BUILDS = 4;

/** Removes the caches of the same bundle (`cli-lint-<size>-<mtime>.v8`) but those of the KEPT_BUILDS last written builds. */
function removeOlderCaches(current: string): void {
  const directory = path.dirname(current);
  const bundle = path.basename(current).replace(/-\d+-\d+\.v8$/, '');
  const others = fs
    .readdirSync(directory)
    .filter((name) => name !== path.basename(current) && name.endsWith('.v8') && name.replace(/-\d+-\d+\.v8$/, '') === bundle)
    .map((name) => ({ file: path.join(directory, name), written: fs.statSync(path.join(directory, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.written - a.written);
  for (const { file } of others.slice(KEPT_BUILDS - 1)) fs.rmSync(file, { force: true });
}
