import { fileURLToPath } from 'node:url';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PrepareOptions } from '../../engine/prepare';
import type { DocumentAnalysis, DocumentView, PipelineModel } from './document-analysis';
import { analyzeDocument, quickView } from './document-analysis';

interface OpenDocument {
  document: TextDocument;
  lastEditOffset?: number;
  analysis?: DocumentAnalysis;
  quick?: DocumentView;
  /** The newest model that came from a text that parsed (or recovered). */
  lastGoodModel?: PipelineModel;
}

/** Open documents and their analyses, computed on demand and cached by version. */
export class DocumentStore {
  private readonly documents = new Map<string, OpenDocument>();

  constructor(private readonly prepareOptions: Omit<PrepareOptions, 'sourcePath' | 'mode'> = {}) {}

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

  uris(): string[] {
    return [...this.documents.keys()];
  }

  version(uri: string): number | undefined {
    return this.documents.get(uri)?.document.version;
  }

  text(uri: string): string | undefined {
    return this.documents.get(uri)?.document.getText();
  }

  /** The current version's full analysis if it is ready, else a parse-free view (see quickView). */
  view(uri: string): DocumentView | undefined {
    const entry = this.documents.get(uri);
    if (!entry) return undefined;
    const { document } = entry;
    // Until a first analysis exists there is no model to lend, and that one is worth the wait.
    if (!entry.analysis || entry.analysis.version === document.version) return this.analysis(uri);
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

  /** The analysis of the current version (computed now if it is not cached). */
  analysis(uri: string): DocumentAnalysis | undefined {
    const entry = this.documents.get(uri);
    if (!entry) return undefined;
    const { document } = entry;
    if (entry.analysis?.version === document.version) return entry.analysis;
    const sourcePath = sourcePathOf(uri);
    const analysis = analyzeDocument({
      uri,
      version: document.version,
      text: document.getText(),
      ...(sourcePath ? { sourcePath } : {}),
      ...(entry.lastEditOffset !== undefined ? { lastEditOffset: entry.lastEditOffset } : {}),
      ...(entry.lastGoodModel ? { previousModel: entry.lastGoodModel } : {}),
      prepareOptions: this.prepareOptions,
      ...(entry.quick?.version === document.version ? { outline: entry.quick.outline } : {}),
    });
    entry.analysis = analysis;
    if (analysis.model && analysis.model.provenance !== 'stale') entry.lastGoodModel = analysis.model;
    return analysis;
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
