import fs from 'node:fs';
import type { StatFingerprint } from './workspace-fingerprint';

/**
 * File systems where every change made on this machine raises an inotify event: ext2/3/4, xfs,
 * btrfs, tmpfs, overlayfs, zfs, f2fs. Not network or FUSE file systems, where a write made
 * elsewhere raises none.
 */
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc2, 0xf2f52010]);

/** More directories than this are left to the stat pass: inotify watches are a per-user budget that VS Code's own file watcher needs too. */
const MAX_WATCHED_DIRECTORIES = 2000;

/**
 * Tells, without a stat per file, that nothing in the workspace changed since a stat pass last
 * confirmed a snapshot's fingerprint: one inotify watch (`fs.watch`, not recursive: Node 20's
 * recursive mode on Linux walks the tree itself, node_modules included, and misses entries made
 * while it walks) on each directory of the fingerprint, and any event on any of them means "look
 * again". A file's directory hears its every write, attribute change, creation, deletion and rename;
 * a directory hears its own. Linux only; anywhere the watch cannot vouch (another platform, a
 * non-local file system, hard-linked files, too many directories, a watch that failed) the stat
 * pass does the work, as it did before.
 */
export class ChangeWatch {
  private watchers: fs.FSWatcher[] = [];
  private followed: StatFingerprint | undefined;
  private stirred = true;
  /** After a watch failed for a reason other than a directory vanishing (the watch limit, an error event): for good. */
  private broken = process.platform !== 'linux';

  /**
   * Listens on the directories of `fingerprint` (the watches stay when it is the one already
   * followed) and forgets the events heard so far. Called right before the stat pass that confirms
   * the fingerprint, so that a change made during or after that pass is heard.
   */
  follow(fingerprint: StatFingerprint): void {
    if (this.broken) return;
    if (this.followed !== fingerprint) this.listen(fingerprint);
    this.stirred = false;
  }

  /** True when the watches are on `fingerprint`'s directories. */
  follows(fingerprint: StatFingerprint): boolean {
    return !this.broken && this.followed === fingerprint;
  }

  /**
   * True when no event was heard since `follow`, counting every change made before this call:
   * inotify queues a change's event before its system call returns, and libuv reads that queue in
   * the event loop's poll phase, so two setImmediate turns see at least one whole poll phase that
   * began after this call (one turn may land in the check phase right after a poll already done).
   */
  async quiet(): Promise<boolean> {
    await nextTurn();
    await nextTurn();
    return !this.broken && this.followed !== undefined && !this.stirred;
  }

  close(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    this.followed = undefined;
  }

  private listen(fingerprint: StatFingerprint): void {
    this.close();
    const { directories } = fingerprint;
    if (directories.length === 0 || directories.length > MAX_WATCHED_DIRECTORIES || fingerprint.hardLinked) return;
    const heard = () => {
      this.stirred = true;
    };
    const failed = () => {
      this.stirred = true;
      this.broken = true;
      this.close();
    };
    try {
      for (const directory of directories) {
        if (!LOCAL_FILE_SYSTEMS.has(fs.statfsSync(directory).type)) {
          this.close();
          return;
        }
        this.watchers.push(fs.watch(directory, { persistent: false }, heard).on('error', failed));
      }
    } catch (error) {
      this.close();
      // A directory gone since the listing is a change the stat pass finds; anything else
      // (ENOSPC: the inotify watch limit) leaves the work to the stat pass from now on.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.broken = true;
      return;
    }
    this.followed = fingerprint;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
