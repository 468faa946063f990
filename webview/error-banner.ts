// The banner shown when the document does not parse or lay out: the last good graph stays on
// screen, and the banner links to the error's location.
import type { Diagnostic } from '../engine/model/diagnostics';
import { formatPosition } from '../engine/model/source';
import { el } from './dom';

export class ErrorBanner {
  readonly root = el('div', { class: 'error-banner', role: 'alert', hidden: true });
  private readonly message = el('span', { class: 'error-message' });
  private readonly link = el('button', { class: 'link', type: 'button' });
  private diagnostic: Diagnostic | undefined;

  constructor(reveal: (diagnostic: Diagnostic) => void) {
    this.root.append(this.link, ' ', this.message);
    this.link.addEventListener('click', () => {
      if (this.diagnostic) reveal(this.diagnostic);
    });
  }

  show(diagnostic: Diagnostic, keptLastGraph: boolean): void {
    this.diagnostic = diagnostic;
    this.link.hidden = !diagnostic.range;
    this.link.textContent = diagnostic.range ? `Line ${formatPosition(diagnostic.range.start)}` : '';
    this.message.textContent = `${diagnostic.message}${keptLastGraph ? ' — showing the last graph that parsed.' : ''}`;
    this.root.hidden = false;
  }

  hide(): void {
    this.diagnostic = undefined;
    this.root.hidden = true;
  }
}
