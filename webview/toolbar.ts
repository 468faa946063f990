// The graph's toolbar: zoom, layout engine, search, export and copy.
import { el } from './dom';
import { layoutEngines, type LayoutEngine } from '../host/protocol/webview';

export interface ToolbarIntents {
  fit(): void;
  zoom(factor: number): void;
  setEngine(engine: LayoutEngine): void;
  search(query: string, next: boolean): void;
  exportImage(format: 'svg' | 'png'): void;
  copy(): void;
}

export class Toolbar {
  readonly root = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Graph' });
  private readonly engine = el('select', { 'aria-label': 'Layout engine' }, layoutEngines.map((name) => el('option', { value: name }, [name])));
  private readonly searchField = el('input', { type: 'search', placeholder: 'Search id, label, key=value', 'aria-label': 'Search the graph' });
  readonly status = el('span', { class: 'run-status', 'aria-live': 'polite' });

  constructor(intents: ToolbarIntents) {
    const button = (label: string, title: string, action: () => void) => {
      const b = el('button', { type: 'button', title, 'aria-label': title }, [label]);
      b.addEventListener('click', action);
      return b;
    };
    this.engine.addEventListener('change', () => intents.setEngine(this.engine.value as LayoutEngine));
    this.searchField.addEventListener('input', () => intents.search(this.searchField.value, false));
    this.searchField.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') intents.search(this.searchField.value, true);
      if (event.key === 'Escape') {
        this.searchField.value = '';
        intents.search('', false);
      }
    });
    this.root.append(
      button('Fit', 'Fit the graph to the view', () => intents.fit()),
      button('+', 'Zoom in', () => intents.zoom(1.25)),
      button('−', 'Zoom out', () => intents.zoom(0.8)),
      this.engine,
      this.searchField,
      button('SVG', 'Export as SVG', () => intents.exportImage('svg')),
      button('PNG', 'Export as PNG', () => intents.exportImage('png')),
      button('Copy', 'Copy the graph as SVG', () => intents.copy()),
      this.status,
    );
  }

  showEngine(engine: LayoutEngine): void {
    this.engine.value = engine;
  }
}
