import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from '../model/json';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';
import { writeFileAtomic, writeJsonAtomic } from './atomic-write';
import type { ArtifactReference } from './artifact-reference';
import { isArtifactReference } from './artifact-reference';
import { RUN_FILES } from './run-file-names';
import { runFile } from './run-layout';

/** Canonical §5.5: values past this many bytes (as JSON) do not belong in the context. */
const ARTIFACT_THRESHOLD_BYTES = 100 * 1024;
const INDEX_FILE = 'index.json';
/** The largest artifact a store accepts: what a run record may hold. */
const MAX_ARTIFACT_BYTES = READ_LIMITS.runRecord;
const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Canonical §5.5 ArtifactInfo, with the node that stored it (its stage, for the trace panel). */
export interface ArtifactInfo {
  readonly id: string;
  readonly name: string;
  readonly size_bytes: number;
  readonly stored_at: string;
  readonly is_file_backed: boolean;
  readonly node_id?: string;
}

class ArtifactError extends Error {
  override readonly name = 'ArtifactError';
}

/**
 * Canonical §5.5: named storage for stage outputs too large for the context. A run's store lives in
 * its run directory and writes every artifact there (the spec keeps those under the threshold in
 * memory; a run here resumes and branches from its directory alone, specs/EXTENSIONS.md A1), with
 * `index.json` holding their infos. Without a directory (a library caller) it keeps them in memory.
 */
export class ArtifactStore {
  private readonly infos = new Map<string, ArtifactInfo>();
  private readonly memory = new Map<string, unknown>();

  constructor(
    private readonly runDirectory?: string,
    readonly thresholdBytes = ARTIFACT_THRESHOLD_BYTES,
  ) {
    for (const info of runDirectory ? readIndex(runDirectory) : []) this.infos.set(info.id, info);
  }

  store(id: string, name: string, data: unknown, nodeId?: string): ArtifactInfo {
    if (!ARTIFACT_ID.test(id)) throw new ArtifactError(`artifact id ${JSON.stringify(id)} is not 1-128 letters, digits, '.', '_' or '-' (starting with a letter or digit)`);
    const text = JSON.stringify(data);
    if (text === undefined) throw new ArtifactError(`artifact ${id}: the data is not JSON`);
    const size = Buffer.byteLength(text);
    if (size > MAX_ARTIFACT_BYTES) throw new ArtifactError(`artifact ${id} is ${size} bytes; the most an artifact may hold is ${MAX_ARTIFACT_BYTES}`);
    const info: ArtifactInfo = { id, name, size_bytes: size, stored_at: new Date().toISOString(), is_file_backed: this.runDirectory !== undefined, ...(nodeId ? { node_id: nodeId } : {}) };
    if (this.runDirectory) {
      // Durable before anything (a journal line, a checkpoint) can refer to it.
      writeFileAtomic(this.file(id), `${text}\n`, true);
      this.infos.set(id, info);
      writeJsonAtomic(path.join(runFile(this.runDirectory, 'artifacts'), INDEX_FILE), [...this.infos.values()], true);
    } else {
      this.infos.set(id, info);
      this.memory.set(id, structuredClone(data));
    }
    return info;
  }

  retrieve(id: string): unknown {
    if (!this.has(id)) throw new ArtifactError(`artifact ${JSON.stringify(id)} not found`);
    if (!this.runDirectory) return structuredClone(this.memory.get(id));
    return JSON.parse(readFileChecked(this.file(id), MAX_ARTIFACT_BYTES)) as unknown;
  }

  has(id: string): boolean {
    return this.infos.has(id);
  }

  list(): ArtifactInfo[] {
    return [...this.infos.values()];
  }

  /**
   * A context value as the context keeps it: past the threshold, stored under an id derived from
   * its key and content (a later value of the key is another artifact, so older checkpoints still
   * resolve) and replaced by a reference.
   */
  externalize(key: string, value: unknown, nodeId: string | undefined): unknown {
    if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean' || isArtifactReference(value)) return value;
    if (typeof value === 'string' && value.length * 3 + 2 <= this.thresholdBytes) return value;
    const text = JSON.stringify(value);
    if (text === undefined || Buffer.byteLength(text) <= this.thresholdBytes) return value;
    const digest = crypto.createHash('sha256').update(text).digest('hex').slice(0, 16);
    const id = `${key.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[._-]+/, '').slice(0, 96) || 'value'}-${digest}`;
    const info = this.has(id) ? (this.infos.get(id) as ArtifactInfo) : this.store(id, key, value, nodeId);
    return { $artifact: info.id, name: key, size_bytes: info.size_bytes, path: artifactPath(info.id) } satisfies ArtifactReference;
  }

  /** The value a reference stands for; the reference itself when its artifact is gone. */
  resolve(reference: ArtifactReference): unknown {
    try {
      return this.retrieve(reference.$artifact);
    } catch {
      return reference;
    }
  }

  private file(id: string): string {
    return path.join(this.runDirectory as string, artifactPath(id));
  }
}

/** An artifact's file, relative to its run directory (canonical §5.6: `artifacts/{id}.json`). */
export function artifactPath(id: string): string {
  return `${RUN_FILES.artifacts}/${id}.json`;
}

/** The infos a run directory's store holds (empty when it has none). */
export function readIndex(runDirectory: string): ArtifactInfo[] {
  const file = path.join(runFile(runDirectory, 'artifacts'), INDEX_FILE);
  if (!fs.existsSync(file)) return [];
  try {
    const data = JSON.parse(readFileChecked(file, READ_LIMITS.runRecord)) as unknown;
    return Array.isArray(data) ? data.filter((info): info is ArtifactInfo => isRecord(info) && typeof info.id === 'string' && ARTIFACT_ID.test(info.id)) : [];
  } catch {
    return [];
  }
}
