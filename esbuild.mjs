// Bundles every entry point into dist/. Node entries are CommonJS (VS Code loads the extension
// with require); the webview is a browser IIFE (its CSS import lands in dist/webview.css).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
// Tests build a private copy (--outdir=DIR) so that concurrent test files never read a half-written dist/.
const outdir = process.argv.find((arg) => arg.startsWith('--outdir='))?.slice('--outdir='.length) ?? 'dist';

// manifest.json records the commit the engine was built from; "unknown" outside a checkout.
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
})();

// The CLI is bundles that load one another on first use, beside dist/cli.js: bin.ts (the compile
// cache first), then main.ts (the command line), then the one command that runs, so `attractor lint`
// loads the parser and the rules but never the runtime or the LLM clients. An `import('./X')` in
// cli/ of a module listed here stays a require of dist/<bundle>.js at run time. (CommonJS output
// has no code splitting; the command bundles each carry their own copy of the engine modules they use.)
const cliBundles = { 'cli-main': 'cli/main.ts', 'cli-lint': 'cli/lint-command.ts', 'cli-run': 'cli/run-command.ts', 'cli-trace': 'cli/trace-command.ts', 'cli-diff': 'cli/diff-command.ts', 'cli-doctor': 'cli/doctor-command.ts', 'cli-serve': 'cli/serve-command.ts', 'cli-worker': 'cli/worker-command.ts', 'cli-restate-run': 'cli/restate-run-command.ts' };
// The language server's entries likewise load the server and the checker as bundles of their own,
// after turning the compile cache on (language-server/bin.ts, language-server/analysis/check-worker-entry.ts).
const languageServerBundles = { 'language-server-main': 'language-server/main.ts', 'language-server-checker': 'language-server/analysis/check-worker.ts' };
const lazyBundleOf = new Map(Object.entries({ ...cliBundles, ...languageServerBundles }).map(([bundle, file]) => [path.resolve(file), bundle]));

/** @type {esbuild.Plugin} */
const lazyBundles = {
  name: 'lazy-bundles',
  setup(build) {
    build.onResolve({ filter: /^\.\/[a-z-]+$/ }, (args) => {
      const bundle = args.kind === 'dynamic-import' ? lazyBundleOf.get(path.resolve(args.resolveDir, `${args.path}.ts`)) : undefined;
      return bundle ? { path: `./${bundle}.js`, external: true } : undefined;
    });
  },
};

/**
 * The page starts its layout worker from a blob of the worker's bundle (a worker must be same-origin,
 * and VS Code serves extension files from another origin): webview/layout-worker-source.ts is loaded
 * as that bundle's text. Rebuilt on every build, so watch mode follows the worker's files too.
 * @type {esbuild.Plugin}
 */
const layoutWorkerSource = {
  name: 'layout-worker-source',
  setup(build) {
    build.onLoad({ filter: /[\\/]webview[\\/]layout-worker-source\.ts$/ }, async () => {
      const worker = await esbuild.build({
        entryPoints: ['webview/layout-worker.ts'],
        bundle: true,
        write: false,
        metafile: true,
        format: 'iife',
        platform: 'browser',
        target: 'chrome120',
        minify: production,
        logLevel: 'warning',
      });
      const [bundle] = worker.outputFiles;
      return { contents: `export const layoutWorkerSource = ${JSON.stringify(bundle.text)};`, loader: 'js', watchFiles: Object.keys(worker.metafile.inputs) };
    });
  },
};

// The CLI runs beside its node_modules; loading the SDKs and the Graphviz WASM from there keeps
// its start fast (they load lazily, on the first model call or `doctor`). Editor bundles keep them in.
const cliExternal = ['openai', '@anthropic-ai/sdk', '@google/genai', '@hpcc-js/wasm-graphviz', '@restatedev/restate-sdk'];

/** @type {esbuild.BuildOptions[]} */
const builds = [
  {
    entryPoints: { cli: 'cli/bin.ts', 'cli-main': cliBundles['cli-main'] },
    platform: 'node',
    plugins: [lazyBundles],
    // A require, not an import(), of the next bundle: Node's ESM loader costs more start-up than it loads.
    supported: { 'dynamic-import': false },
  },
  {
    // With the thread `attractor serve` validates submissions on (server/submission-checker.ts).
    entryPoints: { ...Object.fromEntries(Object.entries(cliBundles).filter(([bundle]) => bundle !== 'cli-main')), 'serve-validation-worker': 'server/validation-worker.ts' },
    platform: 'node',
    external: cliExternal,
  },
  { entryPoints: { webview: 'webview/main.ts' }, platform: 'browser', plugins: [layoutWorkerSource] },
  // The browser app `attractor serve` answers GET / with (server/web-app.ts serves it from dist/).
  { entryPoints: { 'web-app': 'webview/web-app.ts' }, platform: 'browser', plugins: [layoutWorkerSource] },
  {
    entryPoints: { 'debug-adapter': 'debug-adapter/main.ts' },
    platform: 'node',
  },
  {
    entryPoints: { 'language-server': 'language-server/bin.ts', 'language-server-worker': 'language-server/analysis/check-worker-entry.ts', ...languageServerBundles },
    platform: 'node',
    plugins: [lazyBundles],
    supported: { 'dynamic-import': false },
  },
  { entryPoints: { extension: 'extension/main.ts' }, platform: 'node', external: ['vscode'] },
].map((options) => ({
  bundle: true,
  outdir,
  format: options.platform === 'browser' ? 'iife' : 'cjs',
  target: options.platform === 'browser' ? 'chrome120' : 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  define: { ATTRACTOR_BUILD_COMMIT: JSON.stringify(commit) },
  ...options,
}));

if (watch) {
  await Promise.all(builds.map(async (options) => (await esbuild.context(options)).watch()));
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
