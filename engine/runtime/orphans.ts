import type { EventBus } from './events';
import { killProcessGroup } from './process';
import { RunDirectory } from './run-directory';
import { RunLock } from './run-lock';

/**
 * Before a resumed run runs its interrupted node again (the caller holds the run lock): kills the
 * commands a killed engine of this host left running, and waits for those an engine on another host
 * left — their records go once that engine's group guard killed them — at most until its lease
 * guarantees they are dead (`RunLock.foreignCommandsEnd`). What it waited for is a warning event.
 */
export async function settleOrphans(runDirectory: string, events: EventBus): Promise<void> {
  const records = new RunDirectory(runDirectory).processGroups;
  const { foreign } = records.reapOrphans((group) => killProcessGroup(group, 'SIGKILL'));
  if (foreign.length === 0) return;
  const until = RunLock.foreignCommandsEnd(runDirectory) ?? Date.now();
  const hosts = [...new Set(foreign.map((group) => group.host))].join(', ');
  const groups = foreign.map((group) => group.pgid).join(', ');
  events.emit({ type: 'warning', message: `another engine left commands running in this run on ${hosts} (process groups ${groups}): waiting until ${new Date(until).toISOString()} at most for its group guard to confirm it killed them, before running the interrupted node again` });
  const started = Date.now();
  const unconfirmed = await records.awaitForeign(foreign, until);
  const waited = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  events.emit({
    type: 'warning',
    message:
      unconfirmed.length === 0
        ? `waited ${waited}: the group guard on ${hosts} confirmed it killed process groups ${groups}; the interrupted node runs again`
        : `waited ${waited}: no kill confirmation came from ${hosts} for process groups ${unconfirmed.map((group) => group.pgid).join(', ')} (that host is lost or cut off from this file system), but the lease guarantees its group guard killed them by now; the interrupted node runs again`,
  });
}
