import fs from 'node:fs';

/** Inode, size and change times: any rewrite, replacement or removal of the file changes it (undefined: no file). */
export function fileIdentity(file: string): string | undefined {
  try {
    const stat = fs.statSync(file, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return undefined;
  }
}
