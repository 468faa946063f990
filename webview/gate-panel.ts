// The human gate: the question, one button per option captioned with its accelerator key, a freeform
// answer where the gate allows one, and files attached to the answer (picked by the extension: a webview
// sees no paths). Pressing an option's key answers it unless a text field has focus.
import { optionCaption } from '../engine/model/accelerator';
import { el } from './dom';
import type { GateReply } from '../engine/runtime/interviewer';
import type { HumanGateMessage } from '../host/protocol/webview';

/** How each question type (canonical §6.2) reads above its buttons, and names its button group. */
const questionKindHint = { yes_no: 'Answer yes or no.', confirmation: 'Confirm to go on; No fails this step.' } as const;
const questionKindLabel = { multiple_choice: 'Answers', yes_no: 'Yes or no', confirmation: 'Confirm' } as const;

export class GatePanel {
  readonly root = el('section', { class: 'gate-panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'gate-question', hidden: true });
  private gate: HumanGateMessage | undefined;
  private answered = false;
  private returnFocus: Element | null = null;
  private attachments: string[] = [];

  constructor(
    private readonly answer: (gateId: string, answer: GateReply) => void,
    private readonly pickAttachments: (gateId: string) => void,
  ) {
    document.addEventListener('keydown', (event) => this.onKey(event));
  }

  open(gate: HumanGateMessage): void {
    this.gate = gate;
    this.answered = false;
    this.attachments = [];
    if (this.root.hidden) this.returnFocus = document.activeElement;
    const type = gate.questionType ?? 'multiple_choice';
    const buttons = gate.options.map((option) => {
      const title = option.to === '' ? 'The node fails' : `Go to ${option.to}`;
      const button = el('button', { type: 'button', class: 'gate-option', 'aria-keyshortcuts': option.key, 'data-key': option.key, title }, [optionCaption(option)]);
      button.addEventListener('click', () => this.send({ kind: 'option', choice: option.key }));
      return button;
    });
    const children: Node[] = [el('h2', { id: 'gate-question' }, [gate.question])];
    if (type !== 'multiple_choice') children.push(el('p', { class: 'gate-kind muted' }, [questionKindHint[type]]));
    children.push(el('div', { class: `gate-options gate-${type}`, role: 'group', 'aria-label': questionKindLabel[type] }, buttons));
    if (gate.freeform) children.push(this.freeformForm());
    children.push(this.attachmentsControl(gate.gateId));
    if (gate.defaultChoice !== undefined) {
      const after = gate.timeoutMs === undefined ? '' : ` after ${Math.round(gate.timeoutMs / 1000)} s`;
      children.push(el('p', { class: 'gate-default muted' }, [`Without an answer, “${gate.defaultChoice}” is chosen${after}.`]));
    }
    children.push(el('p', { class: 'gate-status muted', 'aria-live': 'polite' }));
    this.root.replaceChildren(...children);
    this.root.hidden = false;
    (buttons[0] ?? this.root.querySelector('textarea'))?.focus();
  }

  close(gateId: string): void {
    if (this.gate?.gateId !== gateId) return;
    this.gate = undefined;
    this.root.hidden = true;
    this.root.replaceChildren();
    if (this.returnFocus instanceof HTMLElement && this.returnFocus.isConnected) this.returnFocus.focus();
  }

  private freeformForm(): HTMLFormElement {
    const field = el('textarea', { rows: 2, 'aria-label': 'Your answer', placeholder: 'Type an answer (Ctrl+Enter sends)' });
    const form = el('form', { class: 'gate-freeform' }, [field, el('button', { type: 'submit' }, ['Send'])]);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (field.value.trim() !== '') this.send({ kind: 'freeform', text: field.value });
    });
    field.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
    });
    return form;
  }

  /** Adds the files the extension picked for this gate; they go with whichever answer is sent. */
  attach(gateId: string, files: readonly string[]): void {
    if (this.gate?.gateId !== gateId || this.answered) return;
    this.attachments = [...new Set([...this.attachments, ...files])];
    const list = this.root.querySelector('.gate-attachments');
    list?.replaceChildren(...this.attachments.map((file) => el('li', { title: file }, [file.split(/[\\/]/).pop() ?? file])));
  }

  private attachmentsControl(gateId: string): HTMLElement {
    const button = el('button', { type: 'button', class: 'gate-attach' }, ['Attach files…']);
    button.addEventListener('click', () => this.pickAttachments(gateId));
    return el('div', { class: 'gate-attachments-row' }, [button, el('ul', { class: 'gate-attachments', 'aria-label': 'Attached files' })]);
  }

  private onKey(event: KeyboardEvent): void {
    const gate = this.gate;
    if (!gate || this.answered || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return;
    const option = gate.options.find((candidate) => candidate.key.toLowerCase() === event.key.toLowerCase());
    if (!option) return;
    event.preventDefault();
    this.send({ kind: 'option', choice: option.key });
  }

  /** One answer per gate: the run is waiting on it and a second would be ambiguous. */
  private send(answer: GateReply): void {
    const gate = this.gate;
    if (!gate || this.answered) return;
    this.answered = true;
    const sent: GateReply = this.attachments.length > 0 && answer.kind !== 'skipped' ? { ...answer, attachments: this.attachments } : answer;
    for (const control of Array.from(this.root.querySelectorAll<HTMLButtonElement | HTMLTextAreaElement>('button, textarea'))) control.disabled = true;
    const status = this.root.querySelector('.gate-status');
    if (status) status.textContent = 'Answer sent; waiting for the run to continue…';
    this.answer(gate.gateId, sent);
  }
}
