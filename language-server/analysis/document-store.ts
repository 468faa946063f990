import { fileURLToPath } from 'node:url';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { Checker } from './checker';
import type { DocumentAnalysis, DocumentView, PipelineModel } from './document-analysis';
import { DeferredModel, isModelReady, quickView, withCheck } from './document-analysis';

interface OpenDocument {
  document: TextDocument;
  lastEditOffset?: number;
  /** The engine's analysis of some version (the current one once it is ready). */
  analysis?: DocumentAnalysis;
  /** The check running for the current version, shared by everyone who asks. */
  inFlight?: InFlightCheck;
  quick?: DocumentView;
  /** The newest model that came from a text that parsed (or recovered); it may still be bytes. */
  lastGoodModel?: PipelineModel;
  /** The newest model already read into objects: what typing-time requests lend. */
  readyModel?: PipelineModel;
  /** Set by an edit: once the document is quiet, read its newest model ahead of the next request. */
  readWhenQuiet?: boolean;
  idleRead?: ReturnType<typeof setTimeout>;
}

/** Quiet time after an edit before a model still in bytes is read ahead of the next request that needs it. */
const IDLE_READ_MS = 1000;

interface InFlightCheck {
  readonly version: number;
  readonly view: DocumentView;
  readonly diagnostics: Promise<readonly Diagnostic[] | undefined>;
  readonly analysis: Promise<DocumentAnalysis | undefined>;
}

/** Open documents: a parse-free view of each version at once, the engine's analysis when the checker delivers. */
export class DocumentStore {
  private readonly documents = new Map<string, OpenDocument>();

  constructor(readonly checker: Checker) {}

  open(uri: string, text: string, version: number): void {
    this.documents.set(uri, { document: TextDocument.create(uri, 'dot', version, text) });
  }

  change(uri: string, changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    const entry = this.documents.get(uri);
    if (!entry) return;
    entry.readWhenQuiet = true;
    scheduleIdleRead(entry);
    const last = changes.at(-1);
    if (last && 'range' in last) entry.lastEditOffset = entry.document.offsetAt(last.range.start) + last.text.length;
    entry.document = TextDocument.update(entry.document, [...changes], version);
  }

  close(uri: string): void {
    const entry = this.documents.get(uri);
    if (entry?.idleRead) clearTimeout(entry.idleRead);
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
    if (entry.analysis?.version === entry.document.version) return Promise.resolve(entry.analysis);
    return this.checkCurrent(uri, entry).analysis;
  }

  /** The current version's diagnostics as soon as the checker has them (before its model arrives). */
  async diagnostics(uri: string): Promise<{ view: DocumentView; diagnostics: readonly Diagnostic[] } | undefined> {
    const entry = this.documents.get(uri);
    if (!entry) return undefined;
    if (entry.analysis?.version === entry.document.version) return { view: entry.analysis, diagnostics: entry.analysis.diagnostics };
    const check = this.checkCurrent(uri, entry);
    const diagnostics = await check.diagnostics;
    return diagnostics ? { view: check.view, diagnostics } : undefined;
  }

  private checkCurrent(uri: string, entry: OpenDocument): InFlightCheck {
    const { version } = entry.document;
    if (entry.inFlight?.version === version) return entry.inFlight;
    const sourcePath = sourcePathOf(uri);
    const handle = this.checker.check({
      uri,
      version,
      text: entry.document.getText(),
      ...(sourcePath ? { sourcePath } : {}),
      ...(entry.lastEditOffset !== undefined ? { lastEditOffset: entry.lastEditOffset } : {}),
    });
    // The worker checks while this thread scans the outline.
    const view = this.quickViewOf(uri, entry);
    const analysis = handle.result.then((check) => {
      if (!check) return undefined;
      const result = withCheck(view, check, entry.lastGoodModel);
      if (check.model) adoptModel(entry, check.model);
      if (entry.document.version === version) entry.analysis = result;
      return result;
    });
    entry.inFlight = { version, view, diagnostics: handle.diagnostics, analysis };
    return entry.inFlight;
  }

  private quickViewOf(uri: string, entry: OpenDocument): DocumentView {
    const { document } = entry;
    if (entry.quick?.version === document.version) return entry.quick;
    const sourcePath = sourcePathOf(uri);
    const previousModel = lendableModel(entry);
    entry.quick = quickView({
      uri,
      version: document.version,
      text: document.getText(),
      ...(sourcePath ? { sourcePath } : {}),
      ...(previousModel ? { previousModel } : {}),
    });
    return entry.quick;
  }
}

function adoptModel(entry: OpenDocument, model: PipelineModel): void {
  const previous = entry.lastGoodModel;
  if (previous && isModelReady(previous)) entry.readyModel = previous;
  entry.lastGoodModel = model;
  if (entry.readWhenQuiet) scheduleIdleRead(entry);
}

/** What a view of a version the checker has not caught up with lends: a model that costs nothing to read, if there is one. */
function lendableModel(entry: OpenDocument): PipelineModel | undefined {
  const newest = entry.lastGoodModel;
  return newest && !isModelReady(newest) && entry.readyModel ? entry.readyModel : newest;
}

/** (Re)starts the quiet timer; when it fires it reads whatever model is newest then. */
function scheduleIdleRead(entry: OpenDocument): void {
  if (entry.idleRead) clearTimeout(entry.idleRead);
  entry.idleRead = setTimeout(() => {
    entry.idleRead = undefined;
    const model = entry.lastGoodModel;
    if (model instanceof DeferredModel && !model.ready) {
      model.read();
      entry.readyModel = model;
    }
    // Done once the current version's model is read; a check still running re-arms it when it lands.
    if (entry.analysis?.version === entry.document.version) entry.readWhenQuiet = false;
  }, IDLE_READ_MS);
  entry.idleRead.unref();
}

function sourcePathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
