import { fileURLToPath } from 'node:url';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Checker } from './checker';
import type { DocumentAnalysis, DocumentView, PipelineModel } from './document-analysis';
import { quickView, withCheck } from './document-analysis';

interface OpenDocument {
  document: TextDocument;
  lastEditOffset?: number;
  /** The engine's analysis of some version (the current one once it is ready). */
  analysis?: DocumentAnalysis;
  /** The check running for the current version, shared by everyone who asks. */
  inFlight?: { readonly version: number; readonly promise: Promise<DocumentAnalysis | undefined> };
  quick?: DocumentView;
  /** The newest model that came from a text that parsed (or recovered). */
  lastGoodModel?: PipelineModel;
}

/** Open documents: a parse-free view of each version at once, the engine's analysis when the checker delivers. */
export class DocumentStore {
  private readonly documents = new Map<string, OpenDocument>();

  constructor(private readonly checker: Checker) {}

  open(uri: string, text: string, version: number): void {
    this.documents.set(uri, { document: TextDocument.create(uri, 'dot', version, text) });
  }

  change(uri: string, changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    const entry = this.documents.get(uri);
    if (!entry) return;
    const last = changes.at(-1);
    if (last && 'range' in last) entry.lastEditOffset = entry.document.offsetAt(last.range.start) + last.text.length;
    entry.document = TextDocument.update(entry.document, [...changes], version);
  }

  close(uri: string): void {
    this.documents.delete(uri);
  }

  isOpen(uri: string): boolean {
    return this.documents.has(uri);
  }

  version(uri: string): number | undefined {
    return this.documents.get(uri)?.document.version;
  }

  text(uri: string): string | undefined {
    return this.documents.get(uri)?.document.getText();
  }

  /** The current version's analysis if it is ready, else a parse-free view lending the newest model (see quickView). */
  view(uri: string): DocumentView | undefined {
    const entry = this.documents.get(uri);
    if (!entry) return undefined;
    if (entry.analysis?.version === entry.document.version) return entry.analysis;
    return this.quickViewOf(uri, entry);
  }

  /** Like view(), but waits for the first analysis of a document that has never had a model to lend. */
  async viewWithModel(uri: string): Promise<DocumentView | undefined> {
    const entry = this.documents.get(uri);
    if (entry && !entry.lastGoodModel && !entry.analysis) await this.analysis(uri);
    return this.view(uri);
  }

  /** The engine's analysis of the current version; undefined if the document closed or a newer version superseded it. */
  analysis(uri: string): Promise<DocumentAnalysis | undefined> {
    const entry = this.documents.get(uri);
    if (!entry) return Promise.resolve(undefined);
    const { version } = entry.document;
    if (entry.analysis?.version === version) return Promise.resolve(entry.analysis);
    if (entry.inFlight?.version === version) return entry.inFlight.promise;
    const view = this.quickViewOf(uri, entry);
    const promise = this.checker
      .check({ uri, version, text: view.text, ...(view.sourcePath ? { sourcePath: view.sourcePath } : {}), ...(entry.lastEditOffset !== undefined ? { lastEditOffset: entry.lastEditOffset } : {}) })
      .then((check) => {
        if (!check) return undefined;
        const analysis = withCheck(view, check, entry.lastGoodModel);
        if (check.model) entry.lastGoodModel = check.model;
        if (entry.document.version === version) entry.analysis = analysis;
        return analysis;
      });
    entry.inFlight = { version, promise };
    return promise;
  }

  private quickViewOf(uri: string, entry: OpenDocument): DocumentView {
    const { document } = entry;
    if (entry.quick?.version === document.version) return entry.quick;
    const sourcePath = sourcePathOf(uri);
    entry.quick = quickView({
      uri,
      version: document.version,
      text: document.getText(),
      ...(sourcePath ? { sourcePath } : {}),
      ...(entry.lastGoodModel ? { previousModel: entry.lastGoodModel } : {}),
    });
    return entry.quick;
  }
}

export function sourcePathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
