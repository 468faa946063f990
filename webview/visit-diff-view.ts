// The browser app's "what did this visit do to this file?": the trace panel's file, before ↔ after
// the visit, as the server reads it from the run's snapshots (GET …/visit/diff) — VS Code opens its
// diff editor on the same snapshots. Every line goes in as text.
import type { Infer } from '../host/protocol/guards';
import { visitFileDiff } from '../host/protocol/serve-schemas';
import { el } from './dom';
import { formatBytes } from '../engine/model/bytes';
import { describeFailure, json, pipelinePath } from './server-api';

type FileDiff = Infer<typeof visitFileDiff>;

/** A visit as the trace panel names it: its node's K-th run within an iteration (K absent: the first). */
export interface VisitName {
  readonly iteration: number;
  readonly nodeId: string;
  readonly visit?: number;
}

export class VisitDiffView {
  readonly root = el('section', { class: 'file-diff', hidden: true, 'aria-label': 'File diff' });
  private readonly title = el('h2', { class: 'file-diff-title' });
  private readonly body = el('div', { class: 'file-diff-body' });
  private readonly closeButton = el('button', { type: 'button' }, ['Close']);
  /** The latest file asked for: an answer for an earlier one arrives too late to show. */
  private shown = 0;
  /** Where the focus was when the diff opened (the file's button): it goes back there on close. */
  private returnFocus: Element | null = null;

  constructor(private readonly runId: string) {
    this.closeButton.addEventListener('click', () => this.close());
    this.root.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
    });
    this.root.append(el('header', { class: 'file-diff-header' }, [this.title, this.closeButton]), this.body);
  }

  async open(visit: VisitName, path: string): Promise<void> {
    const asked = ++this.shown;
    const number = visit.visit ?? 1;
    this.title.textContent = `${path} — ${visit.nodeId} (iteration ${visit.iteration}${number > 1 ? `, visit ${number}` : ''})`;
    this.body.replaceChildren(el('p', { class: 'muted' }, ['Loading…']));
    if (this.root.hidden) this.returnFocus = document.activeElement;
    this.root.hidden = false;
    this.closeButton.focus();
    const query = new URLSearchParams({ iteration: String(visit.iteration), node: visit.nodeId, visit: String(number), path });
    let content: HTMLElement;
    try {
      content = diffContent(await json(visitFileDiff, 'GET', `${pipelinePath(this.runId)}/visit/diff?${query}`));
    } catch (error) {
      content = el('p', { class: 'file-diff-note', role: 'alert' }, [`No diff: ${describeFailure(error)}`]);
    }
    if (asked === this.shown) this.body.replaceChildren(content);
  }

  private close(): void {
    this.shown++;
    this.root.hidden = true;
    this.body.replaceChildren();
    if (this.returnFocus instanceof HTMLElement && this.returnFocus.isConnected) this.returnFocus.focus();
    this.returnFocus = null;
  }
}

const CHANGE_WORDS: Readonly<Record<FileDiff['change'], string>> = { added: 'added by this visit', changed: 'changed by this visit', deleted: 'deleted by this visit' };

function diffContent(diff: FileDiff): HTMLElement {
  const caption = el('p', { class: 'muted' }, [CHANGE_WORDS[diff.change]]);
  switch (diff.kind) {
    case 'binary':
      return el('div', {}, [caption, el('p', { class: 'file-diff-note' }, [`${diff.path} is a binary file: its content is not shown as text.`])]);
    case 'too-large':
      return el('div', {}, [caption, el('p', { class: 'file-diff-note' }, [`${diff.path} is ${formatBytes(diff.bytes)}, more than the ${formatBytes(diff.limit)} the page shows: read it with \`attractor diff\` on the server.`])]);
    case 'text':
      if (diff.diff === '') return el('div', {}, [caption, el('p', { class: 'file-diff-note' }, ['The file is empty.'])]);
      return el('div', {}, [caption, el('pre', { class: 'diff-lines' }, diff.diff.replace(/\n$/, '').split('\n').map((line) => el('span', { class: `diff-line ${lineKind(line)}` }, [line])))]);
  }
}

function lineKind(line: string): string {
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'added';
  if (line.startsWith('-')) return 'removed';
  if (line.startsWith('\\')) return 'note';
  return 'context';
}
