import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { ToolError } from './tool-error';

/**
 * Opens a file the agent named (already resolved inside the working directory) and checks, on the
 * opened descriptor, that it is a regular file with one link. A hard link made inside the working
 * directory to a file outside it shares that file's inode: reading or writing it through the link
 * would reach outside, and no path check can tell. So a file with st_nlink > 1 is refused. The last
 * path component is not followed if it became a symlink since it was resolved, and a FIFO is not
 * waited on.
 */
async function openConfinedFile(file: string, what: string, access: 'read' | 'write'): Promise<FileHandle> {
  const flags = (access === 'read' ? constants.O_RDONLY : constants.O_WRONLY | constants.O_CREAT) | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let handle: FileHandle;
  try {
    handle = await fs.open(file, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError(`${what}: no such file or directory`);
    if (code === 'EISDIR') throw new ToolError(`${what}: is a directory`);
    if (code === 'ELOOP') throw new ToolError(`${what}: became a symbolic link; refused`);
    throw new ToolError(`${what}: ${(error as Error).message}`);
  }
  const stat = await handle.stat();
  const problem = !stat.isFile() ? 'not a regular file' : stat.nlink > 1 ? `the file has ${stat.nlink} hard links, and a hard-linked file may be one outside the working directory; tools refuse it` : undefined;
  if (problem) {
    await handle.close();
    throw new ToolError(`${what}: ${problem}`);
  }
  return handle;
}

/** Reads a confined file whole, as UTF-8; one larger than `maxBytes` is refused. */
export async function readConfinedFile(file: string, what: string, maxBytes: number): Promise<string> {
  const handle = await openConfinedFile(file, what, 'read');
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new ToolError(`${what}: ${size} bytes is more than this tool loads (${maxBytes}); use grep or shell (head, sed -n) instead`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Replaces a confined file's content (creating it when missing). */
export async function writeConfinedFile(file: string, what: string, content: string): Promise<void> {
  const handle = await openConfinedFile(file, what, 'write');
  try {
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
