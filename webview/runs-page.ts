// The runs of the server, live (GET /events), each a link to its run page, and a form that starts a
// pipeline from the server's roots.
import type { PipelineSummary } from '../host/protocol/serve-api';
import { pipelineList, sourceList, submitted } from '../host/protocol/serve-schemas';
import { el } from './dom';
import { followEvents } from './event-stream';
import { formatMs } from './format';
import { describeFailure, json } from './server-api';

const COLUMNS = ['Status', 'Pipeline', 'Current node', 'Gates waiting', 'Started', 'Duration'];

export function showRunsPage(container: HTMLElement): void {
  const body = el('tbody');
  const status = el('p', { class: 'page-status', role: 'status' });
  const table = el('table', { class: 'runs-table' }, [el('caption', { class: 'visually-hidden' }, ['Runs of this server']), el('thead', {}, [el('tr', {}, COLUMNS.map((name) => el('th', { scope: 'col' }, [name])))]), body]);
  container.replaceChildren(
    el('header', { class: 'web-header' }, [el('h1', {}, ['Attractor runs'])]),
    el('main', { class: 'web-page' }, [submitForm(status), status, el('div', { class: 'runs-wrap' }, [table])]),
  );
  let runs: readonly PipelineSummary[] = [];
  const draw = (): void => {
    // Keeps a keyboard user's place: the link that had focus has it again in the new rows.
    const focused = document.activeElement?.closest('tr')?.dataset.run;
    body.replaceChildren(...(runs.length === 0 ? [el('tr', {}, [el('td', { colspan: COLUMNS.length, class: 'muted' }, ['No runs yet.'])])] : [...runs].reverse().map(runRow)));
    if (focused !== undefined) Array.from(body.querySelectorAll<HTMLTableRowElement>('tr')).find((row) => row.dataset.run === focused)?.querySelector('a')?.focus();
  };
  // Durations of running runs move on between updates.
  setInterval(() => {
    for (const cell of Array.from(body.querySelectorAll<HTMLElement>('.run-running .run-duration'))) cell.textContent = formatMs(Math.max(0, Date.now() - Number(cell.dataset.started)));
  }, 1000);
  followEvents(
    'events',
    (message) => {
      const list = pipelineList(JSON.parse(message.data), '');
      if (!list.ok) return void (status.textContent = `The server sent a list this page cannot read: ${list.error}`);
      runs = list.value.pipelines;
      draw();
    },
    () => Promise.resolve(false),
  ).catch((error: unknown) => (status.textContent = describeFailure(error)));
}

function runRow(run: PipelineSummary): HTMLTableRowElement {
  const name = run.graphName ?? run.sourcePath?.split(/[\\/]/).pop() ?? run.id;
  const ended = run.endedAt ? Date.parse(run.endedAt) : Date.now();
  const started = Date.parse(run.createdAt);
  return el('tr', { class: `run-row run-${run.status}`, 'data-run': run.id }, [
    el('td', {}, [el('span', { class: `run-status-badge status-${run.status}` }, [run.status])]),
    el('td', {}, [el('a', { href: `?run=${encodeURIComponent(run.id)}`, class: 'run-link' }, [name]), el('span', { class: 'muted run-id' }, [` ${run.id}`])]),
    el('td', {}, [run.currentNodes.join(', ')]),
    el('td', {}, [run.pendingQuestions > 0 ? el('span', { class: 'gates-waiting' }, [String(run.pendingQuestions)]) : '']),
    el('td', {}, [Number.isNaN(started) ? '' : new Date(started).toLocaleString()]),
    el('td', { class: 'run-duration', 'data-started': started }, [Number.isNaN(started) ? '' : formatMs(Math.max(0, ended - started))]),
  ]);
}

/** The .dot files under the server's roots; the one picked starts (POST /pipelines) and its page opens. */
function submitForm(status: HTMLElement): HTMLFormElement {
  const select = el('select', { id: 'source', name: 'source', required: true });
  const button = el('button', { type: 'submit' }, ['Run']);
  const form = el('form', { class: 'submit-form' }, [el('label', { for: 'source' }, ['Start a pipeline']), select, button]);
  json(sourceList, 'GET', 'sources').then(
    ({ roots }) => {
      const options = roots.flatMap(({ root, files }) => files.map((file) => el('option', { value: `${root}/${file}` }, [roots.length > 1 ? `${root}/${file}` : file])));
      select.replaceChildren(...options);
      if (options.length === 0) form.hidden = true;
    },
    // A server that follows one run (`attractor run --serve`) starts none.
    () => (form.hidden = true),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = 'Starting…';
    json(submitted, 'POST', 'pipelines', { path: select.value }).then(
      (run) => window.location.assign(`?run=${encodeURIComponent(run.id)}`),
      (error: unknown) => {
        status.textContent = `Not started: ${describeFailure(error)}`;
        button.disabled = false;
      },
    );
  });
  return form;
}
