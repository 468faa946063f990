// The browser app's "Re-run from here": POST …/rerun (the server branches the run as `attractor
// resume --from` does). When the working directory holds changes the run did not make, the server
// does nothing and lists them; the page asks, as VS Code's modal does, before going back anyway.
// On success it opens the branch run's page, which says what the restore did.
import type { Infer } from '../host/protocol/guards';
import { rerunRefusal, rerunStarted } from '../host/protocol/serve-schemas';
import { el } from './dom';
import { ApiError, describeFailure, json, pipelinePath } from './server-api';
import type { VisitName } from './visit-diff-view';

type Started = Infer<typeof rerunStarted>;

const CHANGE_MARKS = { added: 'A', changed: 'M', deleted: 'D' } as const;
const NOTICE_KEY = (runId: string): string => `attractor-notice:${runId}`;

export class RerunFromVisit {
  readonly root = el('section', { class: 'rerun-ask', hidden: true, role: 'alertdialog', 'aria-label': 'Re-run from here' });
  /** Where the focus was when the question opened (the Re-run button): it goes back there when dismissed. */
  private returnFocus: Element | null = null;

  constructor(
    private readonly runId: string,
    private readonly notify: (text: string) => void,
  ) {
    this.root.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.dismiss();
    });
  }

  async start(visit: VisitName, discardChanges = false): Promise<void> {
    this.root.hidden = true;
    const body = { iteration: visit.iteration, node: visit.nodeId, ...(visit.visit !== undefined && visit.visit > 1 ? { visit: visit.visit } : {}), ...(discardChanges ? { discardChanges: true } : {}) };
    try {
      const started = await json(rerunStarted, 'POST', `${pipelinePath(this.runId)}/rerun`, body);
      sessionStorage.setItem(NOTICE_KEY(started.id), startedNotice(started));
      window.location.assign(`?run=${encodeURIComponent(started.id)}`);
    } catch (error) {
      const refusal = error instanceof ApiError && error.status === 409 ? rerunRefusal(error.body, '') : undefined;
      if (refusal?.ok && refusal.value.changes && refusal.value.cwd !== undefined) this.ask(visit, refusal.value.cwd, refusal.value.changes);
      else this.notify(`Re-run from ${visit.nodeId}: ${describeFailure(error)}`);
    }
  }

  /** The files going back would discard, and the choice: go back anyway (they stay recoverable with undo), or not. */
  private ask(visit: VisitName, cwd: string, changes: NonNullable<Infer<typeof rerunRefusal>['changes']>): void {
    const restore = el('button', { type: 'button' }, ['Restore anyway']);
    const cancel = el('button', { type: 'button' }, ['Cancel']);
    restore.addEventListener('click', () => void this.start(visit, true));
    cancel.addEventListener('click', () => this.dismiss());
    this.root.replaceChildren(
      el('p', {}, [`Re-running from ${visit.nodeId} would discard ${changes.length} change(s) the run did not make in ${cwd}:`]),
      el('ul', { class: 'rerun-changes' }, changes.map((change) => el('li', {}, [`${CHANGE_MARKS[change.kind]} ${change.path}`]))),
      el('p', { class: 'muted' }, ['What the folder holds now is kept as a snapshot: `attractor undo` on the server brings it back.']),
      el('div', { class: 'rerun-actions' }, [restore, cancel]),
    );
    if (this.root.hidden) this.returnFocus = document.activeElement;
    this.root.hidden = false;
    cancel.focus();
  }

  private dismiss(): void {
    this.root.hidden = true;
    if (this.returnFocus instanceof HTMLElement && this.returnFocus.isConnected) this.returnFocus.focus();
    this.returnFocus = null;
  }
}

/** What a rerun left for the branch run's page to say: where it came from and what the restore did, once. */
export function takeRerunNotice(runId: string): string | undefined {
  const notice = sessionStorage.getItem(NOTICE_KEY(runId)) ?? undefined;
  sessionStorage.removeItem(NOTICE_KEY(runId));
  return notice;
}

function startedNotice({ rerun }: Started): string {
  const from = `Re-run of ${rerun.from} from before ${rerun.nodeId}@${rerun.visit}`;
  if (rerun.undo === undefined) return `${from}: the working directory was NOT restored (${rerun.workspaceNotRestored ?? 'no snapshot'}); the branch starts from the run's state only.`;
  const discarded = rerun.discarded ? `, discarding ${rerun.discarded} change(s) the run did not make` : '';
  const leftAlone = rerun.overBudget?.length ? ` Left as it is, past the snapshot budget: ${rerun.overBudget.join(', ')}.` : '';
  return `${from}: the working directory was put back as it was then${discarded}; \`attractor undo ${rerun.undo}\` on the server brings back what it held.${leftAlone}`;
}
