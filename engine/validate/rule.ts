import type { SpanDiagnostic } from '../model/diagnostics';
import type { FileScope } from '../io/file-scope';
import type { Adjacency, Graph } from '../model/graph';
import type { LineIndex } from '../model/source';

export interface RuleContext {
  readonly graph: Graph;
  readonly adjacency: Adjacency;
  readonly lineIndex: LineIndex;
  /** Handler types registered at run time besides the built-ins (custom handlers). */
  readonly knownHandlerTypes: ReadonlySet<string>;
  /** Whether a file exists (for dot_file and similar checks); paths are absolute. */
  readonly fileExists: (absolutePath: string) => boolean;
  /** The files the run may load (absent: any); a dot_file outside them is an error. */
  readonly files?: FileScope;
}

/** Canonical §7.4: a rule looks at the graph and reports diagnostics (ranges as offsets, like the model's). */
export interface LintRule {
  readonly name: string;
  /** `validate` rules gate admission; `lint` rules are advisory and run only in lint(). */
  readonly tier: 'validate' | 'lint';
  /**
   * What a finding rests on: `statement` — only its subject's own statements (and the graph's
   * attributes), so a broken statement elsewhere in the text cannot change it; `graph` (the
   * default) — the shape of the graph around its subject (edges, paths, cycles, data flow).
   */
  readonly restsOn?: 'statement' | 'graph';
  check(context: RuleContext): Iterable<SpanDiagnostic>;
}
