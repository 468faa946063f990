import { isRecord } from '../model/json';

/** What the context holds in place of a value stored as an artifact (runtime/artifact-store.ts). */
export interface ArtifactReference {
  readonly $artifact: string;
  readonly name: string;
  readonly size_bytes: number;
  /** Relative to the run directory. */
  readonly path: string;
}

export function isArtifactReference(value: unknown): value is ArtifactReference {
  return isRecord(value) && typeof value.$artifact === 'string' && typeof value.path === 'string' && typeof value.size_bytes === 'number';
}
