import type { ArtifactReference } from './artifact-reference';
import { isArtifactReference } from './artifact-reference';
import type { ArtifactStore } from './artifact-store';

/**
 * The run context (canonical §5.1): a key-value store shared by the nodes of one walk. Values are
 * plain JSON so a snapshot is the checkpoint. Parallel branches work on clones (canonical §3.8).
 */
export type ContextValues = Record<string, unknown>;

/** The keys a context set and deleted since it was last asked (the run journal records only those). */
export interface ContextChanges {
  readonly set: ContextValues;
  readonly deleted: readonly string[];
}

export class RunContext {
  private readonly values: Map<string, unknown>;
  /** Keys written or deleted since the last takeChanges(), once tracking started. */
  private changed: Set<string> | undefined;
  /** Keys written or deleted while someone else held the context (see `watch`). */
  private readonly watches = new Set<Set<string>>();

  /**
   * With `artifacts` (a run's store, canonical §5.5), a value set past its threshold is stored there
   * and the context keeps a reference: snapshots, checkpoints and the journal stay small, while
   * `get` still answers the value.
   */
  constructor(
    initial: ContextValues = {},
    readonly artifacts?: ArtifactStore,
  ) {
    this.values = new Map(Object.entries(structuredClone(initial)));
  }

  get(key: string): unknown {
    const value = this.values.get(key);
    return this.artifacts && isArtifactReference(value) ? this.artifacts.resolve(value) : value;
  }

  /** The artifact a key's value is stored as, when it is one. */
  artifactOf(key: string): ArtifactReference | undefined {
    const value = this.values.get(key);
    return isArtifactReference(value) ? value : undefined;
  }

  has(key: string): boolean {
    return this.values.has(key) && this.values.get(key) !== undefined && this.values.get(key) !== null;
  }

  getString(key: string, fallback = ''): string {
    const value = this.values.get(key);
    if (value === undefined || value === null) return fallback;
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  set(key: string, value: unknown): void {
    this.values.set(key, this.artifacts ? this.artifacts.externalize(key, value, this.stage()) : value);
    this.noteChange(key);
  }

  delete(key: string): void {
    this.values.delete(key);
    this.noteChange(key);
  }

  private noteChange(key: string): void {
    this.changed?.add(key);
    for (const watch of this.watches) watch.add(key);
  }

  /**
   * Notes the keys written from now on until the returned function is called, which reports them:
   * what a controller edited while the walk waited on it, so the walk's journal can replay it.
   */
  watch(): () => ContextChanges {
    const keys = new Set<string>();
    this.watches.add(keys);
    return () => {
      this.watches.delete(keys);
      return this.changesOf(keys);
    };
  }

  apply(updates: Readonly<Record<string, unknown>> | undefined): void {
    if (!updates) return;
    for (const [key, value] of Object.entries(updates)) this.set(key, value);
  }

  /** What changed since the previous call (the first call starts tracking and reports nothing). */
  takeChanges(): ContextChanges {
    const keys = this.changed ?? [];
    this.changed = new Set();
    return this.changesOf(keys);
  }

  private changesOf(keys: Iterable<string>): ContextChanges {
    const set: ContextValues = {};
    const deleted: string[] = [];
    for (const key of keys) {
      if (this.values.has(key)) set[key] = this.values.get(key);
      else deleted.push(key);
    }
    return { set, deleted };
  }

  keys(): string[] {
    return [...this.values.keys()];
  }

  snapshot(): ContextValues {
    return structuredClone(Object.fromEntries(this.values));
  }

  clone(): RunContext {
    return new RunContext(this.snapshot(), this.artifacts);
  }

  /** The node running now (the engine sets `current_node` before each), whose artifacts these are. */
  private stage(): string | undefined {
    const node = this.values.get('current_node');
    return typeof node === 'string' ? node : undefined;
  }
}
