// dot-language-support behind a stdio language server, for the side-by-side benches: what
// dot-language-server (its own server, not on the registry this machine reaches) does with it — a
// document's text parsed and validated on open and on each change, diagnostics published, completion
// answered from the document's parsed file. Runs under Node 24 (dot-language-support needs Node >= 22).
import dotLanguageSupport from 'dot-language-support';
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';

const { createService } = dotLanguageSupport;
const connection = createConnection(ProposedFeatures.all);
const service = createService();
const documents = new TextDocuments(TextDocument);
const parsed = new Map();

function parse(document) {
  const file = service.parseDocument(document);
  parsed.set(document.uri, { version: document.version, file });
  return file;
}

function parsedOf(document) {
  const known = parsed.get(document.uri);
  return known?.version === document.version ? known.file : parse(document);
}

connection.onInitialize(() => ({
  capabilities: {
    textDocumentSync: TextDocumentSyncKind.Incremental,
    completionProvider: { triggerCharacters: ['[', ',', '='] },
  },
}));
documents.onDidChangeContent(({ document }) => {
  const diagnostics = service.validateDocument(document, parse(document));
  void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics });
});
documents.onDidClose(({ document }) => parsed.delete(document.uri));
connection.onCompletion(({ textDocument, position }) => {
  const document = documents.get(textDocument.uri);
  return document ? service.getCompletions(document, parsedOf(document), position) : [];
});
documents.listen(connection);
connection.listen();
