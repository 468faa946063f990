// "What did this visit do to this file?": the diff editor between the workspace snapshots taken
// before and after one node visit, both read from the run's private store (workspace.git).
import * as vscode from 'vscode';
import { RunReader } from '../host/run-directory/run-reader';
import { visitDiffTitle } from './runs-model';

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
    const store = new RunReader(query.run).store();
    return store?.fileAt(query.tree, uri.path.slice(1)) ?? '';
  }
}

export function registerSnapshotDocuments(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SCHEME, new SnapshotDocuments());
}

export async function openVisitFileDiff(runDirectory: string, visit: { readonly iteration: number; readonly nodeId: string; readonly visit?: number }, file: string): Promise<void> {
  const found = new RunReader(runDirectory).visitRecord(visit);
  const files = found?.record.files;
  if (!found || !files) {
    void vscode.window.showWarningMessage(`Attractor: ${visit.nodeId} (iteration ${visit.iteration}) has no workspace snapshots in ${runDirectory}.`);
    return;
  }
  const title = visitDiffTitle(file, visit.nodeId, found.visit);
  await vscode.commands.executeCommand('vscode.diff', snapshotUri(runDirectory, files.before, file), snapshotUri(runDirectory, files.after, file), title);
}
