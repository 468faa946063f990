// The layering of the tree, as an ESLint rule that `npm run lint` runs on every import, export-from,
// dynamic import() and require() (test/lint/layering.test.ts shows it failing):
// - engine/ never imports vscode, a face (language-server/, debug-adapter/, webview/, extension/),
//   nor test/, bench/ or scripts/;
// - faces reach the engine through its library modules (engine/index.ts and its folders: model,
//   parse, runtime, ...), never through engine/cli/, which is the CLI face's own code;
// - the graph view's page code (webview/ except the modules that run in the extension host) never
//   imports Node modules, vscode, or those host-side modules. esbuild's browser build of
//   webview/main.ts also fails on a Node module reached through the engine.
// - product code never imports test/, bench/ or scripts/.
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const faces = new Set(['language-server', 'debug-adapter', 'webview', 'extension']);
const product = new Set(['engine', ...faces]);
const tooling = new Set(['test', 'bench', 'scripts']);
/** webview/ modules that run in the extension host (the graph panel, the debug adapter), not in the page. */
const webviewHostSide = new Set(['webview/html.ts', 'webview/run-files.ts', 'webview/run-projection.ts', 'webview/graph-state.ts']);
const nodeBuiltins = new Set(builtinModules);

/** Repository-relative path with forward slashes. */
function repoPath(file) {
  return path.relative(root, file).split(path.sep).join('/');
}

/** What `specifier`, imported from `file`, is: a module of this repository or a package. */
function target(file, specifier) {
  if (specifier.startsWith('.')) {
    const resolved = repoPath(path.resolve(path.dirname(file), specifier));
    return { kind: 'local', path: resolved, layer: resolved.split('/')[0] };
  }
  const builtin = specifier.startsWith('node:') || nodeBuiltins.has(specifier.split('/')[0]);
  return { kind: builtin ? 'node' : 'package', name: specifier };
}

/** Why importing `imported` from the repository file `from` breaks the layering, or undefined. */
function violation(from, imported) {
  const layer = from.split('/')[0];
  if (!product.has(layer)) return undefined;
  if (imported.kind === 'local' && tooling.has(imported.layer)) return `${layer}/ is product code: it never imports ${imported.layer}/`;
  if (layer === 'engine') {
    if (imported.kind === 'package' && imported.name === 'vscode') return 'engine/ never imports vscode';
    if (imported.kind === 'local' && faces.has(imported.layer)) return `engine/ never imports a face (${imported.layer}/)`;
    return undefined;
  }
  if (imported.kind === 'local' && (imported.path === 'engine/cli' || imported.path.startsWith('engine/cli/'))) {
    return 'faces reach the engine through its library modules, not engine/cli/ (the CLI face)';
  }
  if (layer === 'webview' && !webviewHostSide.has(from)) {
    if (imported.kind === 'node') return `webview page code runs in the browser: it never imports the Node module ${imported.name}`;
    if (imported.kind === 'package' && imported.name === 'vscode') return 'webview page code never imports vscode';
    const importedFile = imported.kind === 'local' ? `${imported.path.replace(/\.ts$/, '')}.ts` : undefined;
    if (importedFile && webviewHostSide.has(importedFile)) return `webview page code never imports ${importedFile}, which runs in the extension host`;
  }
  return undefined;
}

const importsRule = {
  meta: { type: 'problem', docs: { description: 'Keeps engine/, the faces and the webview page in their layers' }, schema: [] },
  create(context) {
    const from = repoPath(context.filename);
    const check = (node, source) => {
      if (typeof source?.value !== 'string') return;
      const message = violation(from, target(context.filename, source.value));
      if (message) context.report({ node, message: `${message} (imports '${source.value}')` });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
    };
  },
};

export default { rules: { imports: importsRule } };
