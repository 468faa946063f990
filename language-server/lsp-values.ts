// The protocol's values the server uses, imported from vscode-languageserver here only: the bundle
// copies the ~300 exports of that CommonJS module into an object of their own for every module that
// imports a value from it, ~12 ms of CPU at each start when eleven modules did.
export {
  CodeActionKind,
  CompletionItemKind,
  DiagnosticSeverity,
  DidChangeWatchedFilesNotification,
  DocumentHighlightKind,
  ErrorCodes,
  FileChangeType,
  FoldingRangeKind,
  InsertTextFormat,
  MarkupKind,
  ResponseError,
  SymbolKind,
  TextDocumentSyncKind,
} from 'vscode-languageserver';
