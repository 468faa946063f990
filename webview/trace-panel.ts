// The run's trace: a filterable table of visits, a timeline and the descent chart, plus the
// selected visit's prompt, response and status files and the workspace files it changed. Works the
// same live or for a finished run.
import { drawDescentChart } from './descent-chart';
import { el } from './dom';
import { formatCost, formatMs } from './format';
import { formatBytes } from '../engine/model/bytes';
import { summariseIterations } from './iterations';
import type { RunStatus, TraceEntry, VisitArtifactsMessage, WireFileChange } from '../host/protocol/webview';
import { statusClass } from './status-colors';
import { drawTimeline } from './timeline';
import { formatRunUsage, runUsageTotal } from '../engine/runtime/usage';
import { VISIT_FILES } from '../engine/runtime/run-file-names';

const COLUMNS = ['iter', 'node', 'status', 'duration', 'attempt', 'explicit', 'label'];
const USAGE_COLUMNS = ['tokens', 'cost'];
/** Short headers, so every column fits a side-by-side panel; the full name is the header's tooltip. */
const HEADERS: Readonly<Record<string, { readonly text: string; readonly title: string }>> = {
  duration: { text: 'time', title: 'duration' },
  attempt: { text: 'tries', title: 'attempts' },
  explicit: { text: 'expl.', title: 'the handler set the status explicitly' },
  label: { text: 'label', title: 'preferred_label' },
};
const ALL_NODES = '';

export interface TracePanelIntents {
  selectVisit(entry: TraceEntry): void;
  openRun(): void;
  /** Show one file before ↔ after the visit. */
  openFileDiff(visit: VisitKey, path: string): void;
  /** Start a new branch run from before the visit (a finished run's only). */
  rerunFrom(visit: VisitKey): void;
}

/** A run in one of these states has ended: it can be re-run from one of its visits. */
const ENDED: ReadonlySet<RunStatus> = new Set(['succeeded', 'failed', 'cancelled']);

const CHANGE_MARKS: Readonly<Record<WireFileChange['kind'], string>> = { added: 'A', changed: 'M', deleted: 'D' };

export class TracePanel {
  readonly root = el('section', { class: 'trace-panel', 'aria-label': 'Run trace' });
  private readonly filter = el('select', { 'aria-label': 'Filter by node' });
  private readonly summary = el('span', { class: 'trace-summary' });
  private readonly head = el('tr');
  private readonly body = el('tbody');
  /** Tokens and cost columns appear only when some entry carries them (LLM nodes with usage). */
  private showUsage = false;
  private readonly charts = el('div', { class: 'trace-charts' });
  private readonly artifacts = el('div', { class: 'visit-artifacts', 'aria-live': 'polite' });
  private entries: TraceEntry[] = [];
  private gateNodes: ReadonlySet<string> = new Set();
  private selectedVisit: VisitKey | undefined;
  private scheduled = false;
  private filterKey: string | undefined;
  private runEnded = false;
  private readonly rerun = el('button', { type: 'button', class: 'rerun-from', hidden: true, title: 'Start a new branch run from before this visit, with the run state and the workspace files of then; this run stays as it is' }, ['Re-run from here']);

  constructor(private readonly intents: TracePanelIntents) {
    const openRun = el('button', { type: 'button', title: 'Open a finished run directory' }, ['Open run…']);
    openRun.addEventListener('click', () => intents.openRun());
    this.filter.addEventListener('change', () => this.render());
    this.rerun.addEventListener('click', () => {
      if (this.selectedVisit && this.runEnded) intents.rerunFrom(this.selectedVisit);
    });
    const table = el('table', { class: 'trace-table' }, [el('thead', {}, [this.head]), this.body]);
    this.root.append(
      el('header', { class: 'trace-header' }, [el('h2', {}, ['Trace']), this.summary, el('label', {}, ['Node ', this.filter]), openRun]),
      el('div', { class: 'trace-content' }, [el('div', { class: 'trace-table-wrap' }, [table]), this.charts, this.artifacts]),
    );
    this.render();
  }

  /** Gate nodes decide an iteration's verdict in the descent chart. */
  setGateNodes(nodeIds: ReadonlySet<string>): void {
    this.gateNodes = nodeIds;
    this.schedule();
  }

  /** The run's status: "Re-run from here" is offered once it ended, where its host re-runs visits (`reruns`). */
  setRunStatus(status: RunStatus, reruns: boolean): void {
    this.runEnded = ENDED.has(status) && reruns;
    this.rerun.hidden = !this.runEnded;
  }

  add(entries: readonly TraceEntry[], replace: boolean): void {
    this.entries = replace ? [...entries] : [...this.entries, ...entries];
    if (replace) this.showArtifacts(undefined);
    this.schedule();
  }

  showArtifacts(message: VisitArtifactsMessage | undefined): void {
    if (message && (!this.selectedVisit || visitId(this.selectedVisit) !== visitId(visitKey(message)))) return;
    this.artifacts.replaceChildren();
    if (!message) return;
    this.artifacts.append(el('h3', {}, [visitCaption(visitKey(message))]), this.rerun, this.fileChanges(message));
    for (const [field, name] of Object.entries(VISIT_FILES) as Array<[keyof typeof VISIT_FILES, string]>) {
      const content = message[field];
      this.artifacts.append(el('details', { open: content !== undefined }, [el('summary', {}, [content === undefined ? `${name} (none)` : name]), el('pre', {}, [content ?? ''])]));
    }
    for (const artifact of message.artifacts ?? []) {
      const caption = `artifact ${artifact.name} (${formatBytes(artifact.sizeBytes)}) — ${artifact.path}`;
      this.artifacts.append(el('details', { class: 'visit-artifact' }, [el('summary', {}, [caption]), el('pre', {}, [artifact.preview])]));
    }
  }

  /** The workspace files the visit added, changed and deleted; each opens its diff. */
  private fileChanges(message: VisitArtifactsMessage): HTMLElement {
    const changes = message.fileChanges;
    if (!changes) return el('details', { class: 'visit-file-changes' }, [el('summary', {}, ['workspace files (not snapshotted)'])]);
    const visit = visitKey(message);
    const items = changes.map((change) => {
      const open = el('button', { type: 'button', class: `file-change ${change.kind}`, title: `Open the diff of ${change.path} (before ↔ after this visit)` }, [
        el('span', { class: 'change-mark', 'aria-label': change.kind }, [CHANGE_MARKS[change.kind]]),
        ` ${change.path}`,
      ]);
      open.addEventListener('click', () => this.intents.openFileDiff(visit, change.path));
      return el('li', {}, [open]);
    });
    const summary = changes.length === 0 ? 'workspace files (none changed)' : `workspace files (${changes.length} changed)`;
    return el('details', { open: changes.length > 0, class: 'visit-file-changes' }, [el('summary', {}, [summary]), el('ul', {}, items)]);
  }

  /** Appends arrive in bursts during a run; one render per frame is enough. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.render();
    });
  }

  private render(): void {
    this.renderFilter();
    const nodeFilter = this.filter.value;
    const visible = nodeFilter === ALL_NODES ? this.entries : this.entries.filter((entry) => entry.node_id === nodeFilter);
    this.showUsage = this.entries.some((entry) => entry.llm_requests !== undefined);
    const columns = this.showUsage ? [...COLUMNS, ...USAGE_COLUMNS] : COLUMNS;
    this.head.replaceChildren(...columns.map((name) => el('th', { scope: 'col', title: HEADERS[name]?.title }, [HEADERS[name]?.text ?? name])));
    this.body.replaceChildren(...visible.map((entry) => this.row(entry)));
    const iterations = summariseIterations(visible, this.gateNodes);
    const rounds = roundCount(visible);
    const usage = this.showUsage ? ` · total ${formatRunUsage(runUsageTotal(this.entries))}` : '';
    this.summary.textContent = this.entries.length === 0 ? 'no run yet' : `${plural(this.entries.length, 'visit')} · ${plural(iterations.length, 'iteration')}${rounds > iterations.length ? ` (${rounds} rounds)` : ''}${usage}`;
    this.root.classList.toggle('empty', this.entries.length === 0);
    this.charts.replaceChildren(
      el('figure', {}, [drawDescentChart(summariseIterations(this.entries, this.gateNodes)), el('figcaption', {}, ['Descent: duration (bars), unsuccessful outcomes (line), gate verdicts (dots)'])]),
      el('figure', {}, [drawTimeline(iterations, (entry) => this.select(entry)), el('figcaption', {}, ['Timeline per iteration'])]),
    );
  }

  private renderFilter(): void {
    const nodes = [...new Set(this.entries.map((entry) => entry.node_id))].sort();
    const key = nodes.join('\n');
    if (key === this.filterKey) return;
    this.filterKey = key;
    const current = this.filter.value;
    this.filter.replaceChildren(el('option', { value: ALL_NODES }, ['all']), ...nodes.map((node) => el('option', { value: node }, [node])));
    this.filter.value = nodes.includes(current) ? current : ALL_NODES;
  }

  private row(entry: TraceEntry): HTMLTableRowElement {
    const id = visitId(entryVisit(entry));
    const selected = this.selectedVisit !== undefined && visitId(this.selectedVisit) === id;
    const row = el('tr', { tabindex: '0', class: selected ? 'selected' : undefined, 'data-node': entry.node_id, 'data-iteration': entry.iteration, 'data-visit': id }, [
      el('td', {}, [String(entry.iteration)]),
      el('td', { class: 'clip', title: entry.scope }, [entry.node_id, entry.visit ? el('span', { class: 'muted' }, [` #${entry.visit}`]) : null, entry.scope ? el('span', { class: 'muted' }, [` (${entry.scope})`]) : null]),
      el('td', {}, [el('span', { class: `status-pill ${statusClass(entry.status)}`, title: entry.failure_reason }, [entry.status])]),
      el('td', { class: 'num' }, [formatMs(entry.duration_ms)]),
      el('td', { class: 'num' }, [entry.attempt === undefined ? '' : String(entry.attempt)]),
      el('td', {}, [entry.is_explicit ? 'yes' : 'no']),
      el('td', { class: 'clip', title: entry.preferred_label || undefined }, [entry.preferred_label ?? '', entry.forced_edge ? el('span', { class: 'muted' }, [` forced → ${entry.forced_edge.to}`]) : null]),
      this.showUsage && el('td', { class: 'num' }, [tokensText(entry)]),
      this.showUsage && el('td', { class: 'num' }, [entry.cost_usd === undefined ? '' : entry.cost_usd === 'unknown' ? 'unknown' : formatCost(entry.cost_usd)]),
    ]);
    row.title = entry.ts;
    row.addEventListener('click', () => this.select(entry));
    row.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.select(entry);
      }
    });
    return row;
  }

  private select(entry: TraceEntry): void {
    const visit = entryVisit(entry);
    this.selectedVisit = visit;
    for (const row of Array.from(this.body.rows)) row.classList.toggle('selected', row.dataset.visit === visitId(visit));
    this.artifacts.replaceChildren(el('p', { class: 'muted' }, [`Loading ${visitCaption(visit)}…`]));
    this.intents.selectVisit(entry);
  }
}

/** One visit: a node's K-th run within an iteration (the files of each live in their own directory). */
interface VisitKey {
  readonly iteration: number;
  readonly nodeId: string;
  readonly visit: number;
}

function entryVisit(entry: TraceEntry): VisitKey {
  return { iteration: entry.iteration, nodeId: entry.node_id, visit: entry.visit ?? 1 };
}

function visitKey(message: VisitArtifactsMessage): VisitKey {
  return { iteration: message.iteration, nodeId: message.nodeId, visit: message.visit ?? 1 };
}

function visitId(key: VisitKey): string {
  return `${key.iteration}/${key.visit}/${key.nodeId}`;
}

function visitCaption(key: VisitKey): string {
  return `${key.nodeId} · iteration ${key.iteration}${key.visit > 1 ? ` · visit ${key.visit}` : ''}`;
}

/** Times the walk went round: per iteration, the most visits any node had in it. */
function roundCount(entries: readonly TraceEntry[]): number {
  const perIteration = new Map<number, number>();
  for (const entry of entries) perIteration.set(entry.iteration, Math.max(perIteration.get(entry.iteration) ?? 1, entry.visit ?? 1));
  return [...perIteration.values()].reduce((sum, rounds) => sum + rounds, 0);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function tokensText(entry: TraceEntry): string {
  const { input_tokens: input, output_tokens: output } = entry;
  if (input === undefined || output === undefined) return '';
  return input === 'unknown' || output === 'unknown' ? 'unknown' : (input + output).toLocaleString('en-US');
}
