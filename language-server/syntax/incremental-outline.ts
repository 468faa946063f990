/**
 * The outline of an edited text from the outline before the edit: only the tokens from just
 * before the edit to where the new tokens line up with the old ones again are scanned, and only
 * the statements from the one before the edit to the first unchanged one after it are read again.
 * Everything after is the previous outline's, its tokens moved by the edit's length in place (their
 * segments shift: see shiftTokens), so the records after the edit are the previous ones, not copies,
 * and the previous outline is not to be read any more. An edit that can change
 * how the rest of the text lexes (an unclosed string before it, a quote or comment opener that
 * swallows the rest) simply never lines up again, and the update degrades to a full scan.
 */
import type { Block, OpenRoot, Outline, StatementState } from './outline';
import { buildOutline, emptyStatementState, isOpenString, MARK_FIELDS, MARK_ROOT, readStatements } from './outline';
import type { Token } from './scanner';
import { scanFrom, shiftTokens } from './scanner';

/** One replaced span: `[start, oldEnd)` of the previous text became `[start, newEnd)` of the new one. */
export interface TextEdit {
  readonly start: number;
  readonly oldEnd: number;
  readonly newEnd: number;
}

/** The tokens a scanner lookahead can reach past a token's end (`a.b`, `-` then `>`). */
const LOOKAHEAD = 2;

export function updateOutline(previous: Outline, edit: TextEdit, text: string): Outline {
  const old = previous.tokens;
  const delta = edit.newEnd - edit.oldEnd;
  // Rescan from the token before the first one the edit (or a lookahead into it) can touch.
  const touched = firstIndex(old.length, (k) => (old[k] as Token).end >= edit.start - LOOKAHEAD);
  const restart = Math.max(0, touched - 1);
  // A string left open before the edit ends where the rest of the text says: nothing is safe to keep.
  if (previous.firstOpenString !== -1 && previous.firstOpenString < restart) return buildOutline(text);
  const restartOffset = restart === 0 ? 0 : (old[restart] as Token).start;

  // The first line after the edit: from there a `#` comment's line start is as before.
  const newline = text.indexOf('\n', edit.newEnd);
  const alignFrom = newline < 0 ? text.length : newline + 1;
  let candidate = firstIndex(old.length, (k) => (old[k] as Token).start >= edit.oldEnd);
  const linesUp = (token: Token): boolean => {
    if (token.start < alignFrom) return false;
    const oldStart = token.start - delta;
    while (candidate < old.length && (old[candidate] as Token).start < oldStart) candidate++;
    const match = old[candidate];
    return match !== undefined && match.start === oldStart && match.end === token.end - delta && match.kind === token.kind && match.terminated === token.terminated && match.text === token.text;
  };
  const scanned = scanFrom(text, restartOffset, linesUp);
  const keptFrom = scanned.stoppedAt ? candidate : old.length;
  const kept = old.slice(keptFrom);

  const oldCode = previous.code;
  const codeRestart = firstIndex(oldCode.length, (k) => (oldCode[k] as Token).start >= restartOffset);
  const codeKeptFrom = firstIndex(oldCode.length, (k) => (oldCode[k] as Token).start >= (old[keptFrom]?.start ?? Number.POSITIVE_INFINITY));
  const scannedCode = scanned.tokens.filter((t) => t.kind !== 'comment');
  const tokens = old.slice(0, restart).concat(scanned.tokens, kept);
  const code = oldCode.slice(0, codeRestart).concat(scannedCode, oldCode.slice(codeKeptFrom));
  const newCodeKeptFrom = codeRestart + scannedCode.length;
  const codeShift = newCodeKeptFrom - codeKeptFrom;
  shiftTokens(kept, delta);

  const state = resumeState(previous, codeRestart);
  const starts = recordCounts(state);
  const oldMarks = previous.marks;
  let markCursor = 0;
  let rootThere: OpenRoot | undefined;
  /**
   * A statement of a root body in the kept tokens that the previous outline also read from a
   * root body: from there on the reading would repeat the previous one record for record.
   */
  const sameStatement = (index: number, root: OpenRoot): boolean => {
    if (index < newCodeKeptFrom) return false;
    const oldIndex = index - codeShift;
    while (markCursor < oldMarks.length && (oldMarks[markCursor] as number) < oldIndex) markCursor += MARK_FIELDS;
    if (oldMarks[markCursor] !== oldIndex) return false;
    rootThere = root;
    return true;
  };
  readStatements(text, code, state, sameStatement);
  const newEnds = recordCounts(state);
  const oldEnds = rootThere ? Array.from({ length: MARK_ROOT }, (_, field) => oldMarks[markCursor + field] as number) : recordCounts(previous);
  if (rootThere) appendRest(previous, state, markCursor, rootThere, codeShift);
  const { blocks, lists, assignments, nodeIds, arrows, edges, marks } = state;
  const firstOpenString = openStringAfter(previous.firstOpenString, keptFrom, tokens, restart, restart + scanned.tokens.length);
  const outline: Outline = { text, tokens, code, blocks, lists, assignments, nodeIds, arrows, edges, marks, firstOpenString };
  const window = (field: number): RecordWindow => ({ start: starts[field] as number, oldEnd: oldEnds[field] as number, newEnd: newEnds[field] as number });
  rereadWindows.set(outline, { lists: window(2), assignments: window(3), nodeIds: window(4), edges: window(6) });
  return outline;
}

/** Records `[start, oldEnd)` of the previous outline were read again as `[start, newEnd)` of the updated one; the rest are the same. */
export interface RecordWindow {
  readonly start: number;
  readonly oldEnd: number;
  readonly newEnd: number;
}

export interface RereadWindows {
  readonly lists: RecordWindow;
  readonly assignments: RecordWindow;
  readonly nodeIds: RecordWindow;
  readonly edges: RecordWindow;
}

const rereadWindows = new WeakMap<Outline, RereadWindows>();

/** Which records an updated outline read again, for what is derived from the previous one (outline-flow.ts). */
export function rereadBy(outline: Outline): RereadWindows | undefined {
  return rereadWindows.get(outline);
}

/** Record counts in the order of the statement marks' fields (the first, a code index, unused). */
function recordCounts(records: Pick<Outline, 'blocks' | 'lists' | 'assignments' | 'nodeIds' | 'arrows' | 'edges'>): number[] {
  return [0, records.blocks.length, records.lists.length, records.assignments.length, records.nodeIds.length, records.arrows.length, records.edges.length];
}

/**
 * The first unclosed string of the new tokens. None is before `restart` (else the update rescanned
 * all); past the rescanned ones the previous index carries over, unless that string was replaced.
 */
function openStringAfter(previous: number, oldKeptFrom: number, tokens: readonly Token[], restart: number, keptFrom: number): number {
  const rescanned = tokens.slice(restart, keptFrom).findIndex(isOpenString);
  if (rescanned !== -1) return restart + rescanned;
  if (previous === -1) return -1;
  if (previous >= oldKeptFrom) return previous - oldKeptFrom + keptFrom;
  const later = tokens.slice(keptFrom).findIndex(isOpenString);
  return later === -1 ? -1 : keptFrom + later;
}

/** The smallest k in [0, length) with `test(k)` (which must be monotone), else length. */
function firstIndex(length: number, test: (k: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (test(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** The records before the second-to-last statement mark ahead of `codeIndex`, ready to read on from there. */
function resumeState(previous: Outline, codeIndex: number): StatementState {
  const marks = previous.marks;
  let mark = -1;
  for (let m = 0; m < marks.length && (marks[m] as number) <= codeIndex - LOOKAHEAD; m += MARK_FIELDS) mark = m;
  // One statement further back: its last token's lookahead may reach the changed tokens.
  if (mark >= MARK_FIELDS) mark -= MARK_FIELDS;
  if (mark < 0) return emptyStatementState();
  const count = (field: number) => marks[mark + field] as number;
  const rootIndex = count(MARK_ROOT);
  // The root closes after the mark: until reading gets there again it is open.
  const { close: _closedLater, ...rootBlock } = previous.blocks[rootIndex] as Block;
  const blocks = previous.blocks.slice(0, count(1));
  blocks[rootIndex] = rootBlock;
  return {
    blocks,
    lists: previous.lists.slice(0, count(2)),
    assignments: previous.assignments.slice(0, count(3)),
    nodeIds: previous.nodeIds.slice(0, count(4)),
    arrows: previous.arrows.slice(0, count(5)),
    edges: previous.edges.slice(0, count(6)),
    marks: marks.slice(0, mark),
    root: { block: rootBlock, index: rootIndex },
    at: count(0),
  };
}

/** Appends the previous outline's records from its mark `from` on to the state that stopped at the same statement. */
function appendRest(previous: Outline, state: StatementState, from: number, root: OpenRoot, codeShift: number): void {
  const marks = previous.marks;
  const oldCounts = Array.from({ length: MARK_FIELDS }, (_, field) => marks[from + field] as number);
  const newCounts = recordCounts(state);
  const oldRoot = oldCounts[MARK_ROOT] as number;
  // The previous reading closed its root in the kept tokens (if at all): so does this one.
  const oldClose = (previous.blocks[oldRoot] as Block).close;
  if (oldClose) state.blocks[root.index] = { ...root.block, close: oldClose };
  const rest = <T>(records: readonly T[], count: number, target: T[]) => {
    for (let k = count; k < records.length; k++) target.push(records[k] as T);
  };
  rest(previous.blocks, oldCounts[1] as number, state.blocks);
  rest(previous.lists, oldCounts[2] as number, state.lists);
  rest(previous.assignments, oldCounts[3] as number, state.assignments);
  rest(previous.nodeIds, oldCounts[4] as number, state.nodeIds);
  rest(previous.arrows, oldCounts[5] as number, state.arrows);
  rest(previous.edges, oldCounts[6] as number, state.edges);
  const blockShift = (newCounts[1] as number) - (oldCounts[1] as number);
  for (let m = from; m < marks.length; m += MARK_FIELDS) {
    state.marks.push((marks[m] as number) + codeShift);
    for (let field = 1; field < MARK_ROOT; field++) state.marks.push((marks[m + field] as number) - (oldCounts[field] as number) + (newCounts[field] as number));
    const markRoot = marks[m + MARK_ROOT] as number;
    // A later root graph's block moved with the blocks before it.
    state.marks.push(markRoot === oldRoot ? root.index : markRoot + blockShift);
  }
}
