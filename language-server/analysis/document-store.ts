import { fileURLToPath } from 'node:url';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { Checker } from './checker';
import type { DocumentAnalysis, DocumentView, PipelineModel } from './document-analysis';
import { DeferredModel, isModelReady, quickView, withCheck } from './document-analysis';
import type { TextEdit } from '../syntax/incremental-outline';
import { updateOutline } from '../syntax/incremental-outline';

interface OpenDocument {
  document: TextDocument;
  lastEditOffset?: number;
  /** The engine's analysis of some version (the current one once it is ready). */
  analysis?: DocumentAnalysis;
  /** The check running for the current version, shared by everyone who asks. */
  inFlight?: InFlightCheck;
  quick?: DocumentView;
  /** What changed since `quick`'s text, as one span: the next view updates its outline from there. */
  changedSinceQuick?: TextEdit;
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
  readonly diagnostics: Promise<{ view: DocumentView; diagnostics: readonly Diagnostic[] } | undefined>;
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
    for (const change of changes) {
      if ('range' in change) {
        const start = entry.document.offsetAt(change.range.start);
        const oldEnd = entry.document.offsetAt(change.range.end);
        entry.changedSinceQuick = widen(entry.changedSinceQuick, { start, oldEnd, newEnd: start + change.text.length });
        entry.lastEditOffset = start + change.text.length;
      } else {
        entry.quick = undefined;
        entry.changedSinceQuick = undefined;
      }
      entry.document = TextDocument.update(entry.document, [change], version);
    }
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
    return this.checkCurrent(uri, entry).diagnostics;
  }

  private checkCurrent(uri: string, entry: OpenDocument): InFlightCheck {
    const { version } = entry.document;
    if (entry.inFlight?.version === version) return entry.inFlight;
    const sourcePath = sourcePathOf(uri);
    const text = entry.document.getText();
    const handle = this.checker.check({
      uri,
      version,
      text,
      ...(sourcePath ? { sourcePath } : {}),
      ...(entry.lastEditOffset !== undefined ? { lastEditOffset: entry.lastEditOffset } : {}),
    });
    // Checks of a 5,000-node text queue for a second or more while typing goes on: a pending check
    // holds only its text, and the view (an outline of tens of MB) is the document's own while the
    // version is current, or built again in the rare case that a request still wants an old one.
    const viewOfVersion = (): DocumentView =>
      entry.document.version === version ? this.quickViewOf(uri, entry) : quickView({ uri, version, text, ...(sourcePath ? { sourcePath } : {}) });
    const diagnostics = handle.diagnostics.then((found) => (found ? { view: viewOfVersion(), diagnostics: found } : undefined));
    const analysis = handle.result.then((check) => {
      if (!check) return undefined;
      const result = withCheck(viewOfVersion(), check, entry.lastGoodModel);
      if (check.model) adoptModel(entry, check.model);
      if (entry.document.version === version) entry.analysis = result;
      return result;
    });
    entry.inFlight = { version, diagnostics, analysis };
    return entry.inFlight;
  }

  private quickViewOf(uri: string, entry: OpenDocument): DocumentView {
    const { document } = entry;
    if (entry.quick?.version === document.version) return entry.quick;
    const sourcePath = sourcePathOf(uri);
    const previousModel = lendableModel(entry);
    const text = document.getText();
    const edit = entry.changedSinceQuick;
    const outline = entry.quick && edit ? updateOutline(entry.quick.outline, edit, text) : undefined;
    entry.quick = quickView({
      uri,
      version: document.version,
      text,
      ...(sourcePath ? { sourcePath } : {}),
      ...(previousModel ? { previousModel } : {}),
      ...(outline ? { outline } : {}),
    });
    entry.changedSinceQuick = undefined;
    return entry.quick;
  }
}

/**
 * Two edits as one span of the text before the first: `next` is in the coordinates after `previous`.
 * Typing stays local, so the span stays small; the outline update re-reads only around it.
 */
function widen(previous: TextEdit | undefined, next: TextEdit): TextEdit {
  if (!previous) return next;
  const shift = previous.newEnd - previous.oldEnd;
  const start = Math.min(previous.start, next.start);
  // Where the combined span ends, in the text after `next`, and back in the text before `previous`.
  const endAfter = Math.max(previous.newEnd + (next.newEnd - next.oldEnd), next.newEnd);
  const oldEnd = Math.max(previous.oldEnd, next.oldEnd - shift);
  return { start, oldEnd, newEnd: endAfter };
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
