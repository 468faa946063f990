/** Wires the feature modules to an LSP connection: token-level requests answer at once, model-level ones await the check. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Connection, InitializeParams, InitializeResult } from 'vscode-languageserver';
import { CodeActionKind, DidChangeWatchedFilesNotification, ErrorCodes, FileChangeType, ResponseError, TextDocumentSyncKind } from './lsp-values';
import type { DocumentAnalysis, DocumentView } from './analysis/document-analysis';
import { pastParseLimits } from './analysis/document-analysis';
import type { Checker } from './analysis/checker';
import { InlineChecker } from './analysis/checker';
import { DocumentStore } from './analysis/document-store';
import { codeActions } from './features/code-actions';
import { complete } from './features/completion';
import { DiagnosticPublisher } from './features/diagnostic-publisher';
import { foldingRanges } from './features/folding';
import { formatDocument } from './features/formatting';
import { hoverTarget, resolveHover } from './features/hover';
import { documentLinks } from './features/links';
import { definition, documentHighlights, prepareRename, references, rename } from './features/navigation';
import { semanticTokens, semanticTokensLegend } from './features/semantic-tokens';
import { documentSymbols } from './features/symbols';
import { breakpointTargets, breakpointTargetsOnDisk, nodeAt } from './features/pipeline-queries';
import { BREAKPOINT_TARGETS_METHOD, NODE_AT_METHOD, parseBreakpointTargetsParams, parseNodeAtParams } from '../host/protocol/language-server';
import type { CheckResult } from '../host/protocol/guards';

interface ServerInitializationOptions {
  /** URI of the rules page (docs/rules.md of the installed extension); `#<rule>` is appended. */
  readonly rulesDocUri?: string;
  /** Quiet time after an edit before diagnostics are recomputed (default 150 ms). */
  readonly diagnosticsDelayMs?: number;
  /** Check documents on a worker thread (default) or on the server's own thread. */
  readonly checkInWorker?: boolean;
}

/** Makes the checker once the client's options are known (called once, at initialize). */
export type CheckerFactory = (inWorker: boolean) => Checker;

/** The docs shipped beside the bundle (dist/../docs/rules.md) when the client names none. */
function defaultRulesDocUri(): string | undefined {
  const candidate = path.resolve(__dirname, '..', 'docs', 'rules.md');
  return fs.existsSync(candidate) ? pathToFileURL(candidate).href : undefined;
}

export function startServer(connection: Connection, createChecker: CheckerFactory): void {
  // The placement is only known at initialize (documents open after it); the store talks to whichever checker is current.
  let checker: Checker = new InlineChecker();
  const store = new DocumentStore({ check: (input) => checker.check(input), forget: (uri) => checker.forget(uri), dispose: () => checker.dispose() });
  let publisher: DiagnosticPublisher | undefined;
  let workspaceRoot: string | undefined;
  let canWatchFiles = false;

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const options = (params.initializationOptions ?? {}) as ServerInitializationOptions;
    const rootUri = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
    workspaceRoot = rootUri?.startsWith('file:') ? fileURLToPath(rootUri) : undefined;
    canWatchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    checker = createChecker(options.checkInWorker !== false);
    publisher = new DiagnosticPublisher({
      store,
      checker: store.checker,
      publish: (p) => void connection.sendDiagnostics(p),
      rulesDocUri: options.rulesDocUri ?? defaultRulesDocUri(),
      delayMs: options.diagnosticsDelayMs ?? 150,
      logError: (message) => connection.console.error(message),
    });
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        completionProvider: { triggerCharacters: ['[', ',', '=', '"', '.', '$', '{', '#', ':', ' ', '>', '&'] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        documentHighlightProvider: true,
        renameProvider: { prepareProvider: true },
        documentSymbolProvider: true,
        foldingRangeProvider: true,
        semanticTokensProvider: { legend: semanticTokensLegend, full: true },
        documentLinkProvider: { resolveProvider: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        documentFormattingProvider: true,
      },
      serverInfo: { name: 'attractor-language-server' },
    };
  });

  // Sub-pipelines change on disk too (git checkout, generators): watch .dot files to re-check their parents.
  connection.onInitialized(() => {
    if (canWatchFiles) void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.dot' }] });
  });

  connection.onShutdown(() => checker.dispose());

  connection.onDidOpenTextDocument(({ textDocument }) => {
    store.open(textDocument.uri, textDocument.text, textDocument.version);
    publisher?.opened(textDocument.uri);
    // While the worker checks it, this thread outlines the text: the first edit then updates that
    // outline instead of outlining the whole edited text before its completion can answer.
    setImmediate(() => readableView(textDocument.uri));
  });
  connection.onDidChangeTextDocument(({ textDocument, contentChanges }) => {
    store.change(textDocument.uri, contentChanges, textDocument.version);
    publisher?.changed(textDocument.uri);
  });
  connection.onDidCloseTextDocument(({ textDocument }) => {
    store.close(textDocument.uri);
    publisher?.closed(textDocument.uri);
  });
  connection.onDidChangeWatchedFiles(({ changes }) => {
    for (const change of changes) if (change.type !== FileChangeType.Deleted || !store.isOpen(change.uri)) publisher?.fileChanged(change.uri);
  });

  type At = { textDocument: { uri: string }; position: { line: number; character: number } };
  const offsetIn = (view: DocumentView, params: At) => view.lineIndex.offsetAt(params.position.line, params.position.character);
  /** The view of a document the server describes: none past the parse limits (Problems says why). */
  const readableView = (uri: string): DocumentView | undefined => {
    const view = store.view(uri);
    return view && !pastParseLimits(view) ? view : undefined;
  };
  /** Latency-critical requests answer from the parse-free view; it is exact for everything read from tokens. */
  const withView = <T>(uri: string, fallback: T, answer: (view: DocumentView) => T): T => {
    const view = readableView(uri);
    return view ? answer(view) : fallback;
  };
  const atPosition = <T>(params: At, fallback: T, answer: (view: DocumentView, offset: number) => T): T => withView(params.textDocument.uri, fallback, (view) => answer(view, offsetIn(view, params)));
  /** Requests that describe the pipeline wait for the engine's analysis of the current version. */
  const withAnalysis = async <T>(uri: string, fallback: T, answer: (analysis: DocumentAnalysis) => T): Promise<T> => {
    if (!readableView(uri)) return fallback;
    const analysis = await store.analysis(uri);
    return analysis ? answer(analysis) : fallback;
  };

  // From the text alone: right after open or an edit, completion (and hover, but on a node) never waits for the checker.
  connection.onCompletion((params) => atPosition(params, [], complete));
  connection.onHover(async (params) => {
    const view = readableView(params.textDocument.uri);
    const target = view && hoverTarget(view, offsetIn(view, params));
    if (!view || !target) return null;
    if (target.kind === 'ready') return target.hover;
    // A node's summary waits for the engine's model of this version (undefined once a newer one superseded it).
    const analysis = await store.analysis(params.textDocument.uri);
    const graphs = await analysis?.model?.graphs();
    return (analysis && resolveHover(analysis, target, graphs?.graph)) ?? null;
  });
  connection.onDefinition((params) => atPosition(params, [], definition));
  connection.onReferences((params) => atPosition(params, [], (analysis, offset) => references(analysis, offset, params.context.includeDeclaration)));
  connection.onDocumentHighlight((params) => atPosition(params, [], documentHighlights));
  connection.onPrepareRename((params) => atPosition(params, null, (analysis, offset) => prepareRename(analysis, offset) ?? null));
  connection.onRenameRequest((params) =>
    atPosition(params, null, (analysis, offset) => {
      const result = rename(analysis, offset, params.newName);
      if (!result.ok) throw new ResponseError(-32803, result.message);
      return result.edit;
    }),
  );
  connection.onDocumentSymbol(({ textDocument }) => withAnalysis(textDocument.uri, [], documentSymbols));
  connection.onFoldingRanges(({ textDocument }) => withView(textDocument.uri, [], foldingRanges));
  connection.languages.semanticTokens.on(({ textDocument }) => withView(textDocument.uri, { data: [] }, semanticTokens));
  connection.onDocumentLinks(({ textDocument }) => withView(textDocument.uri, [], (analysis) => documentLinks(analysis, workspaceRoot)));
  connection.onCodeAction(({ textDocument, context }) => withView(textDocument.uri, [], (analysis) => codeActions(analysis, context.diagnostics)));
  connection.onDocumentFormatting(({ textDocument, options }) => withAnalysis(textDocument.uri, [], (analysis) => formatDocument(analysis, options)));

  // The extension's own questions (host/protocol/language-server.ts), from the same analysis.
  const checked = <T>(result: CheckResult<T>): T => {
    if (!result.ok) throw new ResponseError(ErrorCodes.InvalidParams, result.error);
    return result.value;
  };
  connection.onRequest(BREAKPOINT_TARGETS_METHOD, async (raw: unknown) => {
    const { textDocument, lines } = checked(parseBreakpointTargetsParams(raw));
    if (!store.isOpen(textDocument.uri)) return breakpointTargetsOnDisk(textDocument.uri, lines);
    const analysis = await withAnalysis(textDocument.uri, undefined, (found) => found);
    return analysis ? breakpointTargets(analysis, lines) : null;
  });
  connection.onRequest(NODE_AT_METHOD, async (raw: unknown) => {
    const params = checked(parseNodeAtParams(raw));
    const analysis = await withAnalysis(params.textDocument.uri, undefined, (found) => found);
    return analysis ? nodeAt(analysis, offsetIn(analysis, params)) : null;
  });

  connection.listen();
}
