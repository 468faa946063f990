// One run: a header (back to the runs, status, cancel, resume) above the graph view, whose host is
// the server (browser-host.ts): the same graph, trace and gate panels as in VS Code, and where VS
// Code opens its diff editor or re-runs from a visit, the page's own (visit-diff-view.ts, rerun-from-visit.ts).
import type { PipelineSummary } from '../host/protocol/serve-api';
import { pipelineSummary } from '../host/protocol/serve-schemas';
import { BrowserHost } from './browser-host';
import { el } from './dom';
import { startGraphView } from './graph-page';
import { RerunFromVisit, takeRerunNotice } from './rerun-from-visit';
import { describeFailure, json, pipelinePath } from './server-api';
import { VisitDiffView } from './visit-diff-view';

export function showRunPage(container: HTMLElement, runId: string): void {
  const title = el('h1', {}, [runId]);
  const state = el('span', { class: 'run-state', 'data-status': '' });
  const notice = el('p', { class: 'page-status', role: 'status', 'aria-live': 'polite' });
  const cancel = el('button', { type: 'button', class: 'run-cancel', hidden: true }, ['Cancel']);
  const resume = el('button', { type: 'button', class: 'run-resume', hidden: true, title: 'Walk on from the last checkpoint' }, ['Resume']);
  const show = (summary: PipelineSummary): void => {
    title.textContent = summary.graphName ?? summary.id;
    state.textContent = summary.failureReason ? `${summary.status}: ${summary.failureReason}` : summary.status;
    state.dataset.status = summary.status;
    cancel.hidden = summary.status !== 'running';
    // A server that hands its runs to Restate resumes none: its workers carry them on.
    resume.hidden = !summary.continuable || (summary.status !== 'interrupted' && summary.status !== 'cancelled');
  };
  const act = (button: HTMLButtonElement, action: string, done: () => void): void => {
    button.addEventListener('click', () => {
      button.disabled = true;
      json(pipelineSummary, 'POST', `${pipelinePath(runId)}/${action}`, {}).then(
        (summary) => {
          show(summary);
          done();
        },
        (error: unknown) => (notice.textContent = describeFailure(error)),
      ).finally(() => (button.disabled = false));
    });
  };
  act(cancel, 'cancel', () => (notice.textContent = 'Cancelled; the run keeps its checkpoint and can be resumed.'));
  // The resumed walk is a new event stream: the page starts following it afresh.
  act(resume, 'resume', () => window.location.reload());
  container.replaceChildren(el('header', { class: 'web-header run-header' }, [el('a', { href: './', class: 'back-link' }, ['← Runs']), title, state, cancel, resume]), notice);
  notice.textContent = takeRerunNotice(runId) ?? '';
  const diffView = new VisitDiffView(runId);
  const rerun = new RerunFromVisit(runId, (text) => (notice.textContent = text));
  const host = new BrowserHost(runId, {
    notify: (text) => (notice.textContent = text),
    changed: show,
    showFileDiff: (visit, path) => void diffView.open(visit, path),
    rerunFrom: (visit) => void rerun.start(visit),
  });
  startGraphView(host, container);
  container.append(diffView.root, rerun.root);
}
