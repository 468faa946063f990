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

/** One version of a document as editor features see it: its token outline and the best model at hand. */
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

export interface AnalysisInput {
  readonly uri: string;
  readonly version: number;
  readonly text: string;
  readonly sourcePath?: string;
  /** Offset of the latest edit: the first place to blank when the text does not parse. */
  readonly lastEditOffset?: number;
  /** The model of an earlier version, kept for completion while nothing better exists. */
  readonly previousModel?: PipelineModel;
  readonly prepareOptions?: Omit<PrepareOptions, 'sourcePath' | 'mode'>;
  /** The outline of this very text, when a quick view already built it. */
  readonly outline?: Outline;
}

/** parse → transform → lint through the engine, with recovery when the text does not parse. */
export function analyzeDocument(input: AnalysisInput): DocumentAnalysis {
  const outline = input.outline ?? buildOutline(input.text);
  const prepared = preparePipeline(input.text, { ...input.prepareOptions, ...(input.sourcePath ? { sourcePath: input.sourcePath } : {}), mode: 'lint' });
  const base = {
    uri: input.uri,
    version: input.version,
    text: input.text,
    ...(input.sourcePath ? { sourcePath: input.sourcePath } : {}),
    lineIndex: prepared.lineIndex,
    outline,
    diagnostics: prepared.diagnostics,
  };
  if (prepared.graph && prepared.parsed) return { ...base, model: { parsed: prepared.parsed, graph: prepared.graph, provenance: 'exact' } };

  const syntaxOffsets = prepared.diagnostics.flatMap((d) => (d.range ? [d.range.start.offset] : []));
  const hints = input.lastEditOffset !== undefined ? [input.lastEditOffset, ...syntaxOffsets] : syntaxOffsets;
  const recovered = hints.length > 0 ? recoverModel(input.text, outline, hints, input.sourcePath) : undefined;
  if (recovered?.prepared.graph && recovered.prepared.parsed) {
    return { ...base, model: { parsed: recovered.prepared.parsed, graph: recovered.prepared.graph, provenance: 'recovered' } };
  }
  if (input.previousModel) return { ...base, model: { ...input.previousModel, provenance: 'stale' } };
  return base;
}

/**
 * A view without parsing: the current text's outline with the newest model known. Completion
 * answers from this, so typing never waits for a full parse and lint.
 */
export function quickView(input: Pick<AnalysisInput, 'uri' | 'version' | 'text' | 'sourcePath' | 'previousModel'>): DocumentView {
  return {
    uri: input.uri,
    version: input.version,
    text: input.text,
    ...(input.sourcePath ? { sourcePath: input.sourcePath } : {}),
    lineIndex: new LineIndex(input.text),
    outline: buildOutline(input.text),
    ...(input.previousModel ? { model: { ...input.previousModel, provenance: 'stale' as const } } : {}),
  };
}

/** The model, when its ranges point into this text. */
export function locatedModel(analysis: DocumentView): PipelineModel | undefined {
  return analysis.model && analysis.model.provenance !== 'stale' ? analysis.model : undefined;
}
