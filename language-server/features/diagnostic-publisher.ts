import type { Diagnostic as LspDiagnostic, PublishDiagnosticsParams } from 'vscode-languageserver';
import type { Checker } from '../analysis/checker';
import type { DocumentStore } from '../analysis/document-store';
import type { ChildReference } from './child-pipelines';
import { checkChildren, childReferences, mayReferenceChildren, parentDiagnostic } from './child-pipelines';
import { Debouncer } from './debounce';
import { documentDiagnostics, toLspDiagnostic } from './diagnostics';
import { READ_LIMITS, tryReadFileChecked } from '../../engine/io/read-file-checked';

const documentStart = { start: { line: 0, character: 0, offset: 0 }, end: { line: 0, character: 0, offset: 0 } };

export interface DiagnosticPublisherOptions {
  readonly store: DocumentStore;
  readonly checker: Checker;
  readonly publish: (params: PublishDiagnosticsParams) => void;
  readonly rulesDocUri: string | undefined;
  /** Quiet time after an edit before the document is re-checked. */
  readonly delayMs: number;
  /** Where a failure of a background check is reported (it must not take the server down). */
  readonly logError: (message: string) => void;
}

/**
 * Debounced, superseding diagnostics: each run checks the document version between phases and
 * drops its result when a newer version arrived, so stale diagnostics are never published.
 */
export class DiagnosticPublisher {
  private readonly debouncer: Debouncer;
  /** Parent uri → the sub-pipelines it references, from its latest check. */
  private readonly children = new Map<string, readonly ChildReference[]>();
  /** Closed children whose diagnostics this publisher published (to clear them later). */
  private readonly publishedChildren = new Set<string>();

  constructor(private readonly options: DiagnosticPublisherOptions) {
    this.debouncer = new Debouncer(options.delayMs);
  }

  /** A document just opened is checked at once: its check is on its way to the worker before any request about it is read. */
  opened(uri: string): void {
    this.debouncer.cancel(uri);
    this.runSafely(uri);
    this.scheduleParentsOf(uri);
  }

  changed(uri: string): void {
    this.debouncer.schedule(uri, () => this.runSafely(uri));
    this.scheduleParentsOf(uri);
  }

  closed(uri: string): void {
    this.debouncer.cancel(uri);
    this.options.publish({ uri, diagnostics: [] });
    const orphans = this.children.get(uri) ?? [];
    this.children.delete(uri);
    for (const child of orphans) {
      if (this.publishedChildren.has(child.uri) && !this.options.store.isOpen(child.uri) && this.parentsOf(child.uri).length === 0) {
        this.publishedChildren.delete(child.uri);
        this.options.publish({ uri: child.uri, diagnostics: [] });
      }
    }
  }

  /** A file changed on disk (or a document elsewhere): re-check the open parents that use it. */
  fileChanged(uri: string): void {
    this.scheduleParentsOf(uri);
  }

  private parentsOf(childUri: string): string[] {
    return [...this.children].filter(([, refs]) => refs.some((ref) => ref.uri === childUri)).map(([parent]) => parent);
  }

  private scheduleParentsOf(uri: string): void {
    for (const parent of this.parentsOf(uri)) if (parent !== uri && this.options.store.isOpen(parent)) this.debouncer.schedule(parent, () => this.runSafely(parent));
  }

  private runSafely(uri: string): void {
    this.run(uri).catch((error: unknown) => this.options.logError(`diagnostics for ${uri} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
  }

  /**
   * The document's own findings, published first; sub-pipelines are a second phase that a newer
   * version cancels. Returns what it published, not the view, which the second phase must not
   * keep alive while it waits (a large document's outline is tens of MB).
   */
  private async publishOwn(uri: string): Promise<LspDiagnostic[] | undefined> {
    const { store } = this.options;
    const checked = await store.diagnostics(uri);
    // Superseded or closed meanwhile: the newer version publishes.
    if (!checked || store.version(uri) !== checked.version) return undefined;
    const diagnostics = documentDiagnostics(checked, this.options.rulesDocUri);
    this.options.publish({ uri, version: checked.version, diagnostics });
    return diagnostics;
  }

  private async run(uri: string): Promise<void> {
    const { store } = this.options;
    const diagnostics = await this.publishOwn(uri);
    if (!diagnostics) return;
    if (!mayReferenceChildren(store.text(uri) ?? '')) {
      this.children.set(uri, []);
      return;
    }
    const analysis = await store.analysis(uri);
    if (!analysis || store.version(uri) !== analysis.version) return;
    const references = await childReferences(analysis);
    this.children.set(uri, references);
    if (references.length === 0) return;
    const checks = await checkChildren(references, (ref) => store.text(ref.uri) ?? readFile(ref.path), this.options.checker);
    if (store.version(uri) !== analysis.version) return;
    const parentExtras: LspDiagnostic[] = [];
    for (const check of checks) {
      const extra = parentDiagnostic(check, uri, this.options.rulesDocUri);
      if (extra) parentExtras.push(extra);
      if (!store.isOpen(check.reference.uri)) {
        this.publishedChildren.add(check.reference.uri);
        const childDiagnostics = check.diagnostics.map((d) => toLspDiagnostic(d, check.reference.uri, this.options.rulesDocUri, documentStart));
        this.options.publish({ uri: check.reference.uri, diagnostics: childDiagnostics });
      }
    }
    if (parentExtras.length > 0) this.options.publish({ uri, version: analysis.version, diagnostics: [...diagnostics, ...parentExtras] });
  }
}

function readFile(file: string): string | undefined {
  const read = tryReadFileChecked(file, READ_LIMITS.pipeline);
  return 'text' in read ? read.text : undefined;
}
