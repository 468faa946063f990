import { fileURLToPath } from 'node:url';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { Checker } from './checker';
import type { DocumentAnalysis, DocumentView, EngineCheck, PipelineModel } from './document-analysis';
import { quickView, withCheck } from './document-analysis';
import type { TextEdit } from '../syntax/incremental-outline';
import { updateOutline } from '../syntax/incremental-outline';
import { carryFlow } from './outline-flow';

interface OpenDocument {
  document: TextDocument;
  lastEditOffset?: number;
  /** The engine's result for some version (the current one once the checker delivered it). */
  checked?: CheckedVersion;
  /** `checked` with the view of its version, made when a request first asks for it. */
  analysis?: DocumentAnalysis;
  /** The check running for the current version, shared by everyone who asks. */
  inFlight?: InFlightCheck;
  quick?: DocumentView;
  /** What changed since `quick`'s text, as one span: the next view updates its outline from there. */
  changedSinceQuick?: TextEdit;
  /** The newest model that came from a text that parsed (or recovered): a text that does not lends it as stale. */
  lastGoodModel?: PipelineModel;
}

interface CheckedVersion {
  readonly version: number;
  readonly check: EngineCheck;
  /** The last good model when the check arrived. */
  readonly previousModel: PipelineModel | undefined;
}

/** One version's text with the engine's diagnostics for it: all that publishing them needs (no outline, no model). */
export interface CheckedText {
  readonly uri: string;
  readonly version: number;
  readonly text: string;
  readonly diagnostics: readonly Diagnostic[];
}

interface InFlightCheck {
  readonly version: number;
  readonly diagnostics: Promise<CheckedText | undefined>;
  /** Resolves when the result is in `checked`, or it was dropped (superseded, closed). */
  readonly settled: Promise<void>;
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
    this.documents.delete(uri);
    this.checker.forget(uri);
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

  /** The current version's analysis if it is ready, else a parse-free view of it (see quickView). */
  view(uri: string): DocumentView | undefined {
    const entry = this.documents.get(uri);
    if (!entry) return undefined;
    return this.analysisOf(uri, entry) ?? this.quickViewOf(uri, entry);
  }

  /** The engine's analysis of the current version; undefined if the document closed or a newer version superseded it. */
  async analysis(uri: string): Promise<DocumentAnalysis | undefined> {
    const entry = this.documents.get(uri);
    if (!entry) return undefined;
    const ready = this.analysisOf(uri, entry);
    if (ready) return ready;
    const { version } = entry.document;
    await this.checkCurrent(uri, entry).settled;
    return this.documents.get(uri) === entry && entry.document.version === version ? this.analysisOf(uri, entry) : undefined;
  }

  /** The current version's diagnostics as soon as the checker has them (before its model arrives). */
  async diagnostics(uri: string): Promise<CheckedText | undefined> {
    const entry = this.documents.get(uri);
    if (!entry) return undefined;
    const { version } = entry.document;
    if (entry.checked?.version === version) return { uri, version, text: entry.document.getText(), diagnostics: entry.checked.check.diagnostics };
    return this.checkCurrent(uri, entry).diagnostics;
  }

  /**
   * The analysis of the current version if its check arrived. Its view (the outline of a large text)
   * is made only now, when a request asks: a check's arrival alone makes nothing on this thread.
   */
  private analysisOf(uri: string, entry: OpenDocument): DocumentAnalysis | undefined {
    const { version } = entry.document;
    if (entry.analysis?.version === version) return entry.analysis;
    const { checked } = entry;
    if (checked?.version !== version) return undefined;
    entry.analysis = withCheck(this.quickViewOf(uri, entry), checked.check, checked.previousModel);
    return entry.analysis;
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
    // holds only its text, and a result for a version that is no longer current (or a document
    // closed meanwhile) is dropped without building a view of that text, which nobody would read.
    const current = () => this.documents.get(uri) === entry && entry.document.version === version;
    // Publishing needs no outline: building one here would hold the diagnostics of a large text back.
    const diagnostics = handle.diagnostics.then((found) => (found && current() ? { uri, version, text, diagnostics: found } : undefined));
    const settled = handle.result.then((check) => {
      if (!check) return;
      const previousModel = entry.lastGoodModel;
      if (check.model) entry.lastGoodModel = check.model;
      if (current()) entry.checked = { version, check, previousModel };
    });
    entry.inFlight = { version, diagnostics, settled };
    return entry.inFlight;
  }

  private quickViewOf(uri: string, entry: OpenDocument): DocumentView {
    const { document } = entry;
    if (entry.quick?.version === document.version) return entry.quick;
    const sourcePath = sourcePathOf(uri);
    const text = document.getText();
    const edit = entry.changedSinceQuick;
    const previous = edit ? entry.quick : undefined;
    const outline = previous && edit ? updateOutline(previous.outline, edit, text) : undefined;
    if (previous && outline) carryFlow(previous.outline, outline);
    entry.quick = quickView({
      uri,
      version: document.version,
      text,
      ...(sourcePath ? { sourcePath } : {}),
      ...(outline ? { outline } : {}),
      ...(previous && edit ? { lineIndex: previous.lineIndex.edited(text, edit.start, edit.oldEnd, edit.newEnd) } : {}),
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

function sourcePathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
