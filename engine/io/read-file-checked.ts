import fs from 'node:fs';
import { PARSE_LIMITS } from '../parse/parse-limits';
import { formatBytes } from '../model/bytes';

const MiB = 1024 * 1024;

/**
 * Caps on what the product reads on a user's behalf. A path in a pipeline or a run directory is
 * input like any other: `/dev/zero`, a FIFO or a 20 GB file must end in a diagnostic, not a hang
 * or an out-of-memory abort.
 */
export const READ_LIMITS = {
  /** A .dot file: the pipeline itself, a `dot_file` sub-pipeline. */
  pipeline: PARSE_LIMITS.inputBytes,
  /** A `response_schema` file. */
  schema: 1 * MiB,
  /** A scripted-answers file (`--script`). */
  script: 16 * MiB,
  /** checkpoint.json, manifest.json, trace.jsonl and the other records of a run directory. */
  runRecord: 256 * MiB,
} as const;

class FileReadError extends Error {
  override readonly name = 'FileReadError';
}

/**
 * Reads a UTF-8 file after checking, on the opened descriptor (symlinks followed), that it is a
 * regular file no larger than `limit` bytes. Throws FileReadError naming the file and the cap.
 */
export function readFileChecked(file: string, limit: number): string {
  return withRegularFile(file, (fd, size) => {
    if (size > limit) throw new FileReadError(`${file} is ${formatBytes(size)}, over the ${formatBytes(limit)} limit for this kind of file`);
    const { bytes, more } = readUpTo(fd, limit);
    if (more) throw new FileReadError(`${file} grew past the ${formatBytes(limit)} limit for this kind of file while it was read`);
    return bytes.toString('utf8');
  });
}

/** The first `limit` bytes of a regular file and how many bytes were left unread (files shown to a person). */
export function readFileHead(file: string, limit: number): { readonly text: string; readonly omittedBytes: number } {
  return withRegularFile(file, (fd, size) => {
    const { bytes } = readUpTo(fd, limit);
    return { text: bytes.toString('utf8'), omittedBytes: Math.max(0, size - bytes.length) };
  });
}

/** readFileChecked for callers that report "unreadable" rather than throw: the problem in words. */
export function tryReadFileChecked(file: string, limit: number): { readonly text: string } | { readonly problem: string } {
  try {
    return { text: readFileChecked(file, limit) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

function withRegularFile<T>(file: string, read: (fd: number, size: number) => T): T {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new FileReadError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new FileReadError(`cannot read ${file}: it is ${kindOf(stat)}, not a regular file`);
    return read(fd, stat.size);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads at most `limit` bytes, plus one more to learn whether the file holds more than that. */
function readUpTo(fd: number, limit: number): { bytes: Buffer; more: boolean } {
  const buffer = Buffer.allocUnsafe(Math.min(limit + 1, 64 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= limit) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, limit + 1 - total), null);
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
    total += read;
  }
  const all = Buffer.concat(chunks, total);
  return total > limit ? { bytes: all.subarray(0, limit), more: true } : { bytes: all, more: false };
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}
