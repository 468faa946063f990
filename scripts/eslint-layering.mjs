// The layering of the tree, as an ESLint rule that `npm run lint` runs on every import, export-from,
// dynamic import() and require() (test/lint/layering.test.ts shows it failing). Three floors:
// - engine/ is the core, a pure library: it imports nothing of this tree outside engine/, and never vscode;
//   inside it, the front end that reads a pipeline (model, parse, conditions, transform, validate, io)
//   never imports what runs one (runtime, handlers, llm): the linter needs no engine to lint;
// - host/ launches, follows and shows runs for every face: it imports the engine and itself, never a face
//   nor vscode; host/protocol/ and host/view/ also run in the graph view's page, so they import no Node module;
// - the faces (cli/, server/, restate/, language-server/, debug-adapter/, webview/, extension/) import the
//   engine, host/ and their own folder; another face only through its entry module (<face>/index.ts: the
//   extension runs the debug adapter inline, the CLI starts the server and the workers), nothing else of it.
//   Only the extension imports vscode. The graph view's page (webview/) runs in a browser: no Node module,
//   and of host/ only the browser-safe host/protocol/ and host/view/ (esbuild's browser build of
//   webview/main.ts also fails on a Node module reached through them).
// The extension host parses no pipeline the editor shows: it asks the language server, which holds the
// parse (host/protocol/language-server.ts). Only its chat tools, which lint drafts and files no editor
// opened, import the engine's parser (engine/parse/, engine/prepare, or parseDot/preparePipeline).
// Product code never imports test/, bench/ or scripts/.
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const faces = new Set(['cli', 'server', 'restate', 'language-server', 'debug-adapter', 'webview', 'extension']);
const product = new Set(['engine', 'host', ...faces]);
const tooling = new Set(['test', 'bench', 'scripts']);
/** Folders of host/ that the browser page also loads. */
const browserSafeHost = ['host/protocol/', 'host/view/'];
const nodeBuiltins = new Set(builtinModules);
/** The engine's folders that read a pipeline, and those that run one. */
const engineFrontEnd = new Set(['model', 'parse', 'conditions', 'transform', 'validate', 'io']);
const engineRuntime = new Set(['runtime', 'handlers', 'llm']);

/** The engine's parser, as modules and as names the engine's entry module exports. */
const parserModules = ['engine/parse/', 'engine/prepare'];
const parserNames = new Set(['parseDot', 'preparePipeline']);
const parsesNothing = (from) => from.startsWith('extension/') && !from.startsWith('extension/chat/');
const parserMessage = 'the extension host parses no pipeline: it asks the language server (host/protocol/language-server.ts)';

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

const isBrowserSafeHost = (file) => browserSafeHost.some((folder) => file.startsWith(folder));
/** `<face>`, `<face>/index` or `<face>/index.ts`: the one module of a face that other faces may load. */
const isEntryModule = (imported) => imported.path === imported.layer || imported.path === `${imported.layer}/index` || imported.path === `${imported.layer}/index.ts`;

/** Why importing `imported` from the repository file `from` breaks the layering, or undefined. */
function violation(from, imported) {
  const layer = from.split('/')[0];
  if (!product.has(layer)) return undefined;
  if (imported.kind === 'local' && tooling.has(imported.layer)) return `${layer}/ is product code: it never imports ${imported.layer}/`;
  if (imported.kind === 'package' && imported.name === 'vscode' && layer !== 'extension') return `only extension/ imports vscode (${layer}/ runs outside VS Code too)`;
  if (layer === 'engine') {
    if (imported.kind === 'local' && product.has(imported.layer) && imported.layer !== 'engine') return `engine/ is the core: it never imports ${imported.layer}/`;
    const [, fromFolder] = from.split('/');
    const [, importedFolder] = imported.kind === 'local' ? imported.path.split('/') : [];
    if (engineFrontEnd.has(fromFolder) && engineRuntime.has(importedFolder)) return `engine/${fromFolder}/ reads pipelines: it never imports engine/${importedFolder}/, which runs them`;
    return undefined;
  }
  if (layer === 'host') {
    if (imported.kind === 'local' && faces.has(imported.layer)) return `host/ never imports a face (${imported.layer}/)`;
    if (imported.kind === 'node' && isBrowserSafeHost(from)) return `${from} also runs in the graph view's page: it never imports the Node module ${imported.name}`;
    return undefined;
  }
  if (imported.kind === 'local' && parsesNothing(from) && parserModules.some((module) => imported.path.startsWith(module))) return parserMessage;
  if (imported.kind === 'local' && faces.has(imported.layer) && imported.layer !== layer && !isEntryModule(imported)) {
    return `a face never imports another face's modules: ${layer}/ may load ${imported.layer}/index.ts, nothing else of it`;
  }
  if (layer === 'webview') {
    if (imported.kind === 'node') return `webview page code runs in the browser: it never imports the Node module ${imported.name}`;
    if (imported.kind === 'local' && imported.layer === 'host' && !isBrowserSafeHost(imported.path)) {
      return `webview page code runs in the browser: of host/ it imports only host/protocol/ and host/view/ (not ${imported.path})`;
    }
  }
  return undefined;
}

const importsRule = {
  meta: { type: 'problem', docs: { description: 'Keeps the engine core, host/ and the faces on their floors' }, schema: [] },
  create(context) {
    const from = repoPath(context.filename);
    const check = (node, source) => {
      if (typeof source?.value !== 'string') return;
      const message = violation(from, target(context.filename, source.value));
      if (message) context.report({ node, message: `${message} (imports '${source.value}')` });
    };
    /** `import { parseDot } from '../engine'`: the parser by name, through the engine's entry module. */
    const checkNames = (node) => {
      if (!parsesNothing(from) || typeof node.source?.value !== 'string') return;
      const imported = target(context.filename, node.source.value);
      if (imported.kind !== 'local' || imported.layer !== 'engine' || parserModules.some((module) => imported.path.startsWith(module))) return;
      for (const specifier of node.specifiers ?? []) {
        const name = specifier.type === 'ImportSpecifier' ? specifier.imported.name : specifier.type === 'ExportSpecifier' ? specifier.local.name : undefined;
        if (parserNames.has(name)) context.report({ node: specifier, message: `${parserMessage} (imports ${name} from '${node.source.value}')` });
      }
    };
    return {
      ImportDeclaration: (node) => {
        check(node, node.source);
        checkNames(node);
      },
      ExportNamedDeclaration: (node) => {
        check(node, node.source);
        checkNames(node);
      },
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
    };
  },
};

export default { rules: { imports: importsRule } };
