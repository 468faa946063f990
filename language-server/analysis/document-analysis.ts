import type { Diagnostic } from '../../engine/model/diagnostics';
import type { Graph } from '../../engine/model/graph';
import { LineIndex } from '../../engine/model/source';
import { resolveHandlerType } from '../../engine/model/handler-types';
import type { PrepareOptions } from '../../engine/prepare';
import { preparePipeline } from '../../engine/prepare';
import type { Outline } from '../syntax/outline';
import { buildOutline } from '../syntax/outline';
import { inputTooLarge, PARSE_LIMITS } from '../../engine/parse/parse-limits';
import { recoverModel } from './recovery';

/**
 * Where the model came from: this very text, the statements of this text read whole or this text
 * with broken lines blanked (same offsets), or an earlier version (names are still useful, ranges are not).
 */
export type ModelProvenance = 'exact' | 'recovered' | 'stale';

/** The two graphs of a model. */
export interface ModelGraphs {
  /** As parsed: source ranges of what the author wrote. */
  readonly parsed: Graph;
  /** After transforms (stylesheet, prompt expansion, schemas): what would run. */
  readonly graph: Graph;
}

/**
 * The engine's model of a text: where it came from, each node's handler and label, and its graphs
 * on request. A model checked on the worker thread stays there until a request that describes the
 * pipeline (a node's hover, `dot_file` children) asks for its graphs: at 5,000 nodes serialising
 * them is about a third of a check, and reading them back ~200 ms of this thread.
 */
export interface PipelineModel {
  readonly provenance: ModelProvenance;
  /** Each node's handler and label as the graph after transforms resolves them. */
  readonly nodeDetails: NodeDetails;
  /** The graphs, fetched at most once; undefined when the checker no longer holds them (the document closed). */
  graphs(): Promise<ModelGraphs | undefined>;
  /** The same model (and graphs) under another provenance. */
  as(provenance: ModelProvenance): PipelineModel;
}

/** What document symbols show of a node. */
interface NodeDetail {
  readonly handler: string;
  readonly label?: string;
}

export type NodeDetails = ReadonlyMap<string, NodeDetail>;

function nodeDetailsOf(graph: Graph): NodeDetails {
  const details = new Map<string, NodeDetail>();
  for (const node of graph.nodes.values()) {
    const label = node.attributes.get('label')?.value;
    details.set(node.id, { handler: resolveHandlerType(node), ...(label ? { label } : {}) });
  }
  return details;
}

/** A model built on this thread, its graphs at hand. */
export class LocalModel implements PipelineModel, ModelGraphs {
  constructor(
    readonly parsed: Graph,
    readonly graph: Graph,
    readonly provenance: ModelProvenance,
    private readonly details: { value?: NodeDetails } = {},
  ) {}

  /**
   * Read when first asked, not as the check ends: the checker worker posts a check's diagnostics
   * before it reads its model's node details (a handler resolved for every node).
   */
  get nodeDetails(): NodeDetails {
    this.details.value ??= nodeDetailsOf(this.graph);
    return this.details.value;
  }

  graphs(): Promise<ModelGraphs> {
    return Promise.resolve(this);
  }

  as(provenance: ModelProvenance): LocalModel {
    return new LocalModel(this.parsed, this.graph, provenance, this.details);
  }
}

/** One version of a document as editor features see it: its token outline, and once checked the best model at hand. */
export interface DocumentView {
  readonly uri: string;
  readonly version: number;
  readonly text: string;
  readonly sourcePath?: string;
  readonly lineIndex: LineIndex;
  readonly outline: Outline;
  readonly model?: PipelineModel;
}

/** A view checked by the engine. */
export interface DocumentAnalysis extends DocumentView {
  /** The engine's diagnostics for this text: with syntax errors, beside what the statements read whole prove. */
  readonly diagnostics: readonly Diagnostic[];
}

/** What the engine needs to check one version of a document. Plain data: it crosses to the worker. */
export interface CheckInput {
  readonly uri: string;
  readonly version: number;
  readonly text: string;
  readonly sourcePath?: string;
  /** Offset of the latest edit: the first place to blank when the text does not parse. */
  readonly lastEditOffset?: number;
  /** Only on this thread: extra rules are functions, which cannot cross to the worker. */
  readonly prepareOptions?: Omit<PrepareOptions, 'sourcePath' | 'mode'>;
  /** Only the diagnostics are wanted (a `dot_file` child checked for its parent): the checker keeps no model of it. */
  readonly diagnosticsOnly?: boolean;
}

/** The engine's verdict on one text: its diagnostics and, when it parses or recovers, its model. */
export interface EngineCheck<Model extends PipelineModel = PipelineModel> {
  readonly diagnostics: readonly Diagnostic[];
  readonly model?: Model;
}

/** parse → transform → lint through the engine, with recovery when the text does not parse. */
export function checkText(input: CheckInput): EngineCheck<LocalModel> {
  const prepared = preparePipeline(input.text, { ...input.prepareOptions, ...(input.sourcePath ? { sourcePath: input.sourcePath } : {}), mode: 'lint' });
  if (prepared.graph && prepared.parsed) return { diagnostics: prepared.diagnostics, model: new LocalModel(prepared.parsed, prepared.graph, 'exact') };
  // The statements the parser read whole: their ranges are this text's. Without a node they tell completion less than the last model.
  if (prepared.partial && prepared.partial.parsed.nodes.size > 0) return { diagnostics: prepared.diagnostics, model: new LocalModel(prepared.partial.parsed, prepared.partial.graph, 'recovered') };
  // Past a parse limit nothing is read (as the CLI refuses it), and nothing is recovered either.
  if (prepared.overLimit) return { diagnostics: prepared.diagnostics };
  const syntaxOffsets = prepared.diagnostics.flatMap((d) => (d.range ? [d.range.start.offset] : []));
  const hints = input.lastEditOffset !== undefined ? [input.lastEditOffset, ...syntaxOffsets] : syntaxOffsets;
  const recovered = hints.length > 0 ? recoverModel(input.text, buildOutline(input.text), hints, input.sourcePath) : undefined;
  if (recovered?.graph && recovered.parsed) {
    return { diagnostics: prepared.diagnostics, model: new LocalModel(recovered.parsed, recovered.graph, 'recovered') };
  }
  return { diagnostics: prepared.diagnostics };
}

/** A view completed by the engine's check; without a model of its own it keeps the previous one as stale. */
export function withCheck(view: DocumentView, check: EngineCheck, previousModel: PipelineModel | undefined): DocumentAnalysis {
  const model = check.model ?? previousModel?.as('stale');
  return { ...view, diagnostics: check.diagnostics, ...(model ? { model } : {}) };
}

export interface AnalysisInput extends CheckInput {
  /** The model of an earlier version, kept for completion while nothing better exists. */
  readonly previousModel?: PipelineModel;
}

/** The whole analysis on this thread (the server checks in a worker; tests and tools call this). */
export function analyzeDocument(input: AnalysisInput): DocumentAnalysis {
  return withCheck(quickView(input), checkText(input), input.previousModel);
}

/**
 * A view without parsing: the current text's outline and line index (given when updated from an
 * earlier version's; the index finds its line starts only when asked).
 * Completion answers from this, so typing never waits for a full parse and lint.
 */
export function quickView(input: Pick<AnalysisInput, 'uri' | 'version' | 'text' | 'sourcePath'> & { readonly outline?: Outline; readonly lineIndex?: LineIndex }): DocumentView {
  return {
    uri: input.uri,
    version: input.version,
    text: input.text,
    ...(input.sourcePath ? { sourcePath: input.sourcePath } : {}),
    lineIndex: input.lineIndex ?? new LineIndex(input.text),
    outline: input.outline ?? buildOutline(input.text),
  };
}

/**
 * The text passes a parse limit (its size; blocks nested deeper than the parser reads, one more
 * allowed for an edge operand's `{ a b }` group, which the parser does not count as a subgraph): the
 * CLI refuses it, and the server answers nothing about it but the diagnostic that says so.
 */
export function pastParseLimits(view: DocumentView): boolean {
  return inputTooLarge(view.text) !== undefined || view.outline.nesting > PARSE_LIMITS.subgraphDepth + 1;
}

/** The model, when its ranges point into this text. */
export function locatedModel(analysis: DocumentView): PipelineModel | undefined {
  return analysis.model && analysis.model.provenance !== 'stale' ? analysis.model : undefined;
}
