// "What did this visit do to this file?": the diff editor between the workspace snapshots taken
// before and after one node visit, both read from the run's private store (workspace.git).
import path from 'node:path';
import * as vscode from 'vscode';
import { existingWorkspaceStore } from '../engine/runtime/workspace-snapshot';
import { visitSnapshots } from '../host/run-files';

const SCHEME = 'attractor-snapshot';

/** Which snapshot of which run a document shows; the file itself is the URI's path. */
interface SnapshotQuery {
  readonly run: string;
  readonly tree: string;
}

function snapshotUri(runDirectory: string, tree: string, file: string): vscode.Uri {
  const query: SnapshotQuery = { run: runDirectory, tree };
  return vscode.Uri.from({ scheme: SCHEME, path: `/${file}`, query: JSON.stringify(query) });
}

/** A file the snapshot does not hold (added or deleted by the visit) reads as empty. */
class SnapshotDocuments implements vscode.TextDocumentContentProvider {
  provideTextDocumentContent(uri: vscode.Uri): string {
    const query = JSON.parse(uri.query) as SnapshotQuery;
    const store = existingWorkspaceStore(query.run, query.run);
    return store?.fileAt(query.tree, uri.path.slice(1)) ?? '';
  }
}

export function registerSnapshotDocuments(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SCHEME, new SnapshotDocuments());
}

export async function openVisitFileDiff(runDirectory: string, visit: { readonly iteration: number; readonly nodeId: string; readonly visit?: number }, file: string): Promise<void> {
  const files = visitSnapshots(runDirectory, visit.iteration, visit.nodeId, visit.visit);
  if (!files) {
    void vscode.window.showWarningMessage(`Attractor: ${visit.nodeId} (iteration ${visit.iteration}) has no workspace snapshots in ${runDirectory}.`);
    return;
  }
  const title = `${path.posix.basename(file)} (${visit.nodeId}, iteration ${visit.iteration}: before ↔ after)`;
  await vscode.commands.executeCommand('vscode.diff', snapshotUri(runDirectory, files.before, file), snapshotUri(runDirectory, files.after, file), title);
}
