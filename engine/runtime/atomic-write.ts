import fs from 'node:fs';
import path from 'node:path';
import { writing } from './disk-full';

let counter = 0;

/** A write's temp file beside its target: `name.pid.n.tmp`, unique to this process and write. */
function tempFileFor(file: string): string {
  return `${file}.${process.pid}.${++counter}.tmp`;
}

/** The file a temp file of these writes (`name.pid.n.tmp`) or of the checkpoint's (`name.tmp`) was to become. */
export function tempFileTarget(tempName: string): string {
  return tempName.replace(/(\.\d+\.\d+)?\.tmp$/, '');
}

/**
 * Writes a file so that a reader sees the old content or the new, never half. `durable` adds an
 * fsync before the rename, for what a resume after a power loss depends on (the checkpoint). `mode`
 * is set at creation, so a secret is never readable by others, not even for a moment.
 */
export function writeFileAtomic(file: string, content: string | Uint8Array, durable = false, mode = 0o666): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = tempFileFor(file);
  writing(file, () => {
    const fd = fs.openSync(temp, 'w', mode);
    try {
      fs.writeFileSync(fd, content);
      if (durable) fs.fsyncSync(fd);
    } catch (error) {
      // A write the disk refused leaves no half temp file behind.
      fs.closeSync(fd);
      fs.rmSync(temp, { force: true });
      throw error;
    }
    fs.closeSync(fd);
    fs.renameSync(temp, file);
  });
}

/** writeFileAtomic for content that comes in pieces (a long log), written without holding the event loop; not fsynced. */
export async function writeFileAtomicAsync(file: string, pieces: Iterable<string>): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const temp = tempFileFor(file);
  try {
    await fs.promises.writeFile(temp, pieces);
    await fs.promises.rename(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}

export function writeJsonAtomic(file: string, value: unknown, durable = false, indent = 2): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, indent)}\n`, durable);
}

/** Appends one line durably (trace.jsonl); a torn last line is skipped by readers. */
export function appendLineDurable(file: string, line: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writing(file, () => {
    const fd = fs.openSync(file, 'a');
    try {
      fs.writeSync(fd, `${line}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  });
}
