import { deserialize } from 'node:v8';
import type { Diagnostic } from '../../engine/model/diagnostics';
import type { Graph } from '../../engine/model/graph';
import { LineIndex } from '../../engine/model/source';
import type { PrepareOptions } from '../../engine/prepare';
import { preparePipeline } from '../../engine/prepare';
import type { Outline } from '../syntax/outline';
import { buildOutline } from '../syntax/outline';
import { recoverModel } from './recovery';

/**
 * Where the model came from: this very text, this text with broken lines blanked (same offsets),
 * or an earlier version (names are still useful, ranges are not).
 */
export type ModelProvenance = 'exact' | 'recovered' | 'stale';

export interface PipelineModel {
  /** As parsed: source ranges of what the author wrote. */
  readonly parsed: Graph;
  /** After transforms (stylesheet, prompt expansion, schemas): what would run. */
  readonly graph: Graph;
  readonly provenance: ModelProvenance;
}

/** The two graphs of a model as the checker thread serialised them (v8 serializer). */
export interface SerializedModel {
  readonly bytes: ArrayBuffer;
  readonly provenance: ModelProvenance;
}

/**
 * A model that crossed from the checker thread as bytes. Deserialising a large model takes tens of
 * milliseconds (about 80 ms at 1,000 nodes, 300 at 5,000), so it happens on first read of `parsed`
 * or `graph`, once: only requests that describe the pipeline (hover, symbols, formatting) read
 * it. Completion answers from the text's outline and never does.
 */
export class DeferredModel implements PipelineModel {
  private constructor(
    private readonly payload: { bytes?: ArrayBuffer; graphs?: { parsed: Graph; graph: Graph } },
    readonly provenance: ModelProvenance,
  ) {}

  static from(serialized: SerializedModel): DeferredModel {
    return new DeferredModel({ bytes: serialized.bytes }, serialized.provenance);
  }

  get ready(): boolean {
    return this.payload.graphs !== undefined;
  }

  get parsed(): Graph {
    return this.graphs().parsed;
  }

  get graph(): Graph {
    return this.graphs().graph;
  }

  /** The same graphs (deserialised at most once between them) under another provenance. */
  as(provenance: ModelProvenance): DeferredModel {
    return new DeferredModel(this.payload, provenance);
  }

  private graphs(): { parsed: Graph; graph: Graph } {
    if (!this.payload.graphs) {
      this.payload.graphs = deserialize(new Uint8Array(this.payload.bytes ?? new ArrayBuffer(0))) as { parsed: Graph; graph: Graph };
      delete this.payload.bytes;
    }
    return this.payload.graphs;
  }
}

/** The same model under another provenance, without reading a deferred one. */
function withProvenance(model: PipelineModel, provenance: ModelProvenance): PipelineModel {
  return model instanceof DeferredModel ? model.as(provenance) : { parsed: model.parsed, graph: model.graph, provenance };
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
  /** The engine's diagnostics for this text: a syntax error alone when it does not parse. */
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
}

/** The engine's verdict on one text: its diagnostics and, when it parses or recovers, its model. */
export interface EngineCheck {
  readonly diagnostics: readonly Diagnostic[];
  readonly model?: PipelineModel;
}

/** parse → transform → lint through the engine, with recovery when the text does not parse. */
export function checkText(input: CheckInput): EngineCheck {
  const prepared = preparePipeline(input.text, { ...input.prepareOptions, ...(input.sourcePath ? { sourcePath: input.sourcePath } : {}), mode: 'lint' });
  if (prepared.graph && prepared.parsed) return { diagnostics: prepared.diagnostics, model: { parsed: prepared.parsed, graph: prepared.graph, provenance: 'exact' } };
  const syntaxOffsets = prepared.diagnostics.flatMap((d) => (d.range ? [d.range.start.offset] : []));
  const hints = input.lastEditOffset !== undefined ? [input.lastEditOffset, ...syntaxOffsets] : syntaxOffsets;
  const recovered = hints.length > 0 ? recoverModel(input.text, buildOutline(input.text), hints, input.sourcePath) : undefined;
  if (recovered?.graph && recovered.parsed) {
    return { diagnostics: prepared.diagnostics, model: { parsed: recovered.parsed, graph: recovered.graph, provenance: 'recovered' } };
  }
  return { diagnostics: prepared.diagnostics };
}

/** A view completed by the engine's check; without a model of its own it keeps the previous one as stale. */
export function withCheck(view: DocumentView, check: EngineCheck, previousModel: PipelineModel | undefined): DocumentAnalysis {
  const model = check.model ?? (previousModel ? withProvenance(previousModel, 'stale') : undefined);
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

/** The model, when its ranges point into this text. */
export function locatedModel(analysis: DocumentView): PipelineModel | undefined {
  return analysis.model && analysis.model.provenance !== 'stale' ? analysis.model : undefined;
}
