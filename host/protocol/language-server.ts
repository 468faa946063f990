// The custom requests the extension sends the language server, which answers them from the parse
// it already holds for the document (the extension host never parses a pipeline the editor shows).
// Both sides import these types; the server checks the params and the extension the result.
import { count, list, nullable, object, text, type Check, type CheckResult, type Infer } from './guards';

const id = text(10_000);
const textDocument = object({ uri: text(100_000) });
const position = object({ line: count, character: count });

/** `attractor/breakpointTargets`: which nodes and edges the zero-based `lines` bind to (a node statement wins over edges on its line). */
export const BREAKPOINT_TARGETS_METHOD = 'attractor/breakpointTargets';
const breakpointTargetsParams = object({ textDocument, lines: list(count, 100_000) });
export type BreakpointTargetsParams = Infer<typeof breakpointTargetsParams>;
/** null: the document does not parse (a breakpoint binds to nothing until it does). */
const breakpointTargetsResult = nullable(object({ nodes: list(id), edges: list(count) }));
export type BreakpointTargetsResult = Infer<typeof breakpointTargetsResult>;

/** `attractor/nodeAt`: the node declared or referenced at a position, as a launch would see it (transforms applied). */
export const NODE_AT_METHOD = 'attractor/nodeAt';
const nodeAtParams = object({ textDocument, position });
export type NodeAtParams = Infer<typeof nodeAtParams>;
const optionalText = text(10_000);
/** null: no node there, or the document does not parse. */
const nodeAtResult = nullable(
  object({
    nodeId: id,
    /** The handler the node resolves to (`codergen` for an LLM node). */
    handler: id,
    /** The model the node asks for: its own attributes, else the graph's (a model stylesheet applied). */
    modelSelection: object({}, { provider: optionalText, model: optionalText, reasoningEffort: optionalText }),
  }),
);
export type NodeAtResult = Infer<typeof nodeAtResult>;

const firstError = <T>(check: Check<T>) => (value: unknown): CheckResult<T> => check(value, '');

export const parseBreakpointTargetsParams = firstError(breakpointTargetsParams);
export const parseBreakpointTargetsResult = firstError(breakpointTargetsResult);
export const parseNodeAtParams = firstError(nodeAtParams);
export const parseNodeAtResult = firstError(nodeAtResult);
