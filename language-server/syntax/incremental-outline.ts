/**
 * The outline of an edited text from the outline before the edit: only the tokens from just
 * before the edit to where the new tokens line up with the old ones again are scanned, and only
 * the statements from the one before the edit to the first unchanged one after it are read again.
 * Everything after is the previous outline's rows, not copied: kept as pieces of the previous row
 * stores (row-store.ts) whose offsets read moved by the edit's length and whose token and record
 * indexes read moved by what the re-read part added or removed. An edit that
 * can change how the rest of the text lexes (an unclosed string before it, a quote or comment
 * opener that swallows the rest) simply never lines up again, and the update degrades to a full scan.
 */
import { IntList } from './int-list';
import type { Outline as OutlineType } from './outline';
import { buildOutline, Outline } from './outline';
import { ASSIGNMENT, BLOCK, LIST, NODE_ID, MARK_FIELDS, MARK_ROOT, TABLE_FIELDS, TABLES } from './outline-rows';
import { emptyStatementState, firstOpenString, readStatements, tableStores } from './statement-reader';
import type { StatementState } from './statement-reader';
import { scanInto, TOKEN_FIELDS } from './scanner';

/** One replaced span: `[start, oldEnd)` of the previous text became `[start, newEnd)` of the new one. */
export interface TextEdit {
  readonly start: number;
  readonly oldEnd: number;
  readonly newEnd: number;
}

/** The tokens a scanner lookahead can reach past a token's end (`a.b`, `-` then `>`). */
const LOOKAHEAD = 2;

export function updateOutline(previous: OutlineType, edit: TextEdit, text: string): OutlineType {
  const old = previous.rows;
  const oldCount = previous.tokenCount;
  const delta = edit.newEnd - edit.oldEnd;
  // Rescan from the token before the first one the edit (or a lookahead into it) can touch.
  const touched = firstIndex(oldCount, (k) => previous.endOf(k) >= edit.start - LOOKAHEAD);
  const restart = Math.max(0, touched - 1);
  // A string left open before the edit ends where the rest of the text says: nothing is safe to keep.
  if (old.firstOpenString !== -1 && old.firstOpenString < restart) return buildOutline(text);
  const restartOffset = restart === 0 ? 0 : previous.startOf(restart);

  // The first line after the edit: from there a `#` comment's line start is as before.
  const newline = text.indexOf('\n', edit.newEnd);
  const alignFrom = newline < 0 ? text.length : newline + 1;
  let candidate = firstIndex(oldCount, (k) => previous.startOf(k) >= edit.oldEnd);
  const linesUp = (kind: number, start: number, end: number): boolean => {
    if (start < alignFrom) return false;
    const oldStart = start - delta;
    while (candidate < oldCount && previous.startOf(candidate) < oldStart) candidate++;
    if (candidate >= oldCount || previous.startOf(candidate) !== oldStart || previous.endOf(candidate) !== end - delta) return false;
    return old.tokens.at(candidate * TOKEN_FIELDS) === kind && previous.textOf(candidate) === text.slice(start, end);
  };
  const tokens = IntList.over(old.tokens, restart * TOKEN_FIELDS);
  const oldCode = old.code;
  const codeRestart = firstIndex(oldCode.length, (k) => oldCode.at(k) >= restart);
  const code = IntList.over(oldCode, codeRestart);
  const stopped = scanInto(text, restartOffset, tokens, code, linesUp);
  const keptFrom = stopped >= 0 ? candidate : oldCount;
  const newKeptFrom = tokens.length / TOKEN_FIELDS;
  const tokenShift = newKeptFrom - keptFrom;
  const tokenRows = tokens.store(TOKEN_FIELDS, old.tokens.slice(keptFrom, oldCount, [0, delta, delta]));
  const codeKeptFrom = firstIndex(oldCode.length, (k) => oldCode.at(k) >= keptFrom);
  const newCodeKeptFrom = code.length;
  const codeShift = newCodeKeptFrom - codeKeptFrom;
  // Typing that adds or removes no token (a letter of a word, a space) leaves the code indexes as they were.
  const sameCode = tokenShift === 0 && codeShift === 0 && code.ownEquals(oldCode);
  const codeRows = sameCode ? oldCode : code.store(1, oldCode.slice(codeKeptFrom, oldCode.length, [tokenShift]));
  const scanned = new Outline(text, { tokens: tokenRows, code: codeRows, tables: old.tables, marks: old.marks, firstOpenString: -1 });

  const state = resumeState(previous, codeRestart);
  const starts = recordCounts(state);
  const oldMarks = old.marks;
  let markCursor = 0;
  let rootThere = -1;
  /**
   * A statement of a root body in the kept tokens that the previous outline also read from a
   * root body: from there on the reading would repeat the previous one row for row.
   */
  const sameStatement = (index: number, root: number): boolean => {
    if (index < newCodeKeptFrom) return false;
    const oldIndex = index - codeShift;
    while (markCursor < oldMarks.length && oldMarks.at(markCursor) < oldIndex) markCursor += MARK_FIELDS;
    if (markCursor >= oldMarks.length || oldMarks.at(markCursor) !== oldIndex) return false;
    rootThere = root;
    return true;
  };
  readStatements(scanned, state, sameStatement);
  const newEnds = recordCounts(state);
  const oldEnds = rootThere >= 0 ? Array.from({ length: TABLES.length }, (_, k) => oldMarks.at(markCursor + 1 + k)) : TABLES.map((table) => previous.count(table));
  const rest = rootThere >= 0 ? appendRest(previous, state, markCursor, rootThere, { code: codeShift, token: tokenShift }) : { tables: tableStores(state), marks: state.marks.store(MARK_FIELDS) };
  const rescannedOpen = firstOpenString(tokenRows, restart, newKeptFrom);
  const openString =
    rescannedOpen !== -1 ? rescannedOpen : old.firstOpenString === -1 ? -1 : old.firstOpenString >= keptFrom ? old.firstOpenString + tokenShift : firstOpenString(tokenRows, newKeptFrom);
  const outline = new Outline(text, { tokens: tokenRows, code: codeRows, tables: rest.tables, marks: rest.marks, firstOpenString: openString });
  const window = (table: (typeof TABLES)[number]): RecordWindow => {
    const k = TABLES.indexOf(table);
    return { start: starts[k] as number, oldEnd: oldEnds[k] as number, newEnd: newEnds[k] as number };
  };
  rereadWindows.set(outline, { lists: window('lists'), assignments: window('assignments'), nodeIds: window('nodeIds'), edges: window('edges') });
  return outline;
}

/** Rows `[start, oldEnd)` of the previous outline were read again as `[start, newEnd)` of the updated one; the rest are the same. */
export interface RecordWindow {
  readonly start: number;
  readonly oldEnd: number;
  readonly newEnd: number;
}

interface RereadWindows {
  readonly lists: RecordWindow;
  readonly assignments: RecordWindow;
  readonly nodeIds: RecordWindow;
  readonly edges: RecordWindow;
}

const rereadWindows = new WeakMap<OutlineType, RereadWindows>();

/** Which rows an updated outline read again, for what is derived from the previous one (outline-flow.ts). */
export function rereadBy(outline: OutlineType): RereadWindows | undefined {
  return rereadWindows.get(outline);
}

/** Row counts of the tables, in TABLES order. */
function recordCounts(state: StatementState): number[] {
  return TABLES.map((table) => state.tables[table].length / TABLE_FIELDS[table]);
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

/** The rows before the second-to-last statement mark ahead of `codeIndex`, ready to read on from there. */
function resumeState(previous: OutlineType, codeIndex: number): StatementState {
  const marks = previous.rows.marks;
  const last = firstIndex(marks.rowCount, (row) => marks.at(row * MARK_FIELDS) > codeIndex - LOOKAHEAD) - 1;
  if (last < 0) return emptyStatementState();
  // One statement further back: its last token's lookahead may reach the changed tokens.
  const mark = Math.max(0, last - 1) * MARK_FIELDS;
  // The rows before the mark are read from the previous outline's tables, not copied (see appendRest);
  // the blocks are copied, as reading on closes blocks opened before the mark.
  const tables = Object.fromEntries(
    TABLES.map((table, k) => {
      const rows = previous.rows.tables[table];
      const count = marks.at(mark + 1 + k) * TABLE_FIELDS[table];
      return [table, table === 'blocks' ? IntList.prefix(rows, count, rows.length + 64) : IntList.over(rows, count)];
    }),
  ) as StatementState['tables'];
  const root = marks.at(mark + MARK_ROOT);
  // The root closes after the mark: until reading gets there again it is open.
  tables.blocks.set(root * BLOCK.fields + BLOCK.close, -1);
  return { tables, marks: IntList.over(marks, mark), root, at: marks.at(mark) };
}

/**
 * The tables and marks of the state that stopped at the previous outline's mark `from` (`root`
 * open), with the previous outline's rows from there on: their code and token indexes moved by
 * `shift` and their record indexes by the row counts the re-reading changed. A table whose rows
 * read again are the ones that were there, with nothing to move, is the previous one itself.
 */
function appendRest(previous: OutlineType, state: StatementState, from: number, root: number, shift: { readonly code: number; readonly token: number }): Pick<OutlineType['rows'], 'tables' | 'marks'> {
  const marks = previous.rows.marks;
  const tables = previous.rows.tables;
  const oldCounts = TABLES.map((_, k) => marks.at(from + 1 + k));
  const newCounts = recordCounts(state);
  const moved = TABLES.map((_, k) => (newCounts[k] as number) - (oldCounts[k] as number));
  const [blockShift, , entryShift, , nodeIdShift, arrowShift] = moved as [number, number, number, number, number, number, number];
  const t = shift.token;
  const oldRoot = marks.at(from + MARK_ROOT);
  const nothingMoved = t === 0 && root === oldRoot && moved.every((m) => m === 0);
  /** Rows naming the root as their block name another block now: they are copied to be rewritten. */
  const rootRenamed = root !== oldRoot || blockShift !== 0;
  // The previous reading closed its root in the kept tokens (if at all): so does this one.
  const oldClose = tables.blocks.at(oldRoot * BLOCK.fields + BLOCK.close);
  if (oldClose >= 0) state.tables.blocks.set(root * BLOCK.fields + BLOCK.close, oldClose + t);
  const shifts: Record<(typeof TABLES)[number], readonly number[]> = {
    blocks: [0, t, t, t, t],
    lists: [0, t, t, entryShift, entryShift, nodeIdShift, nodeIdShift, arrowShift, arrowShift, blockShift],
    entries: [t, t, t, t],
    assignments: [0, t, t, t, blockShift],
    nodeIds: [t, 0, blockShift],
    arrows: [t],
    edges: [t, t],
  };
  /** Rows in the root's body name it as their block: it kept its row, unlike the blocks after it. */
  const blockFields: Partial<Record<(typeof TABLES)[number], number>> = { lists: LIST.block, assignments: ASSIGNMENT.block, nodeIds: NODE_ID.block };
  const result = Object.fromEntries(
    TABLES.map((table, k) => {
      const rows = state.tables[table];
      if (table !== 'blocks' && nothingMoved && rows.ownEquals(tables[table])) return [table, tables[table]];
      const oldCount = oldCounts[k] as number;
      const field = blockFields[table];
      if (field === undefined || !rootRenamed) return [table, rows.store(TABLE_FIELDS[table], tables[table].slice(oldCount, previous.count(table), shifts[table]))];
      const first = rows.length;
      rows.own(tables[table].length - oldCount * TABLE_FIELDS[table]);
      rows.appendRows(tables[table], oldCount, previous.count(table), shifts[table]);
      for (let r = first + field; r < rows.length; r += TABLE_FIELDS[table]) if (rows.at(r) === oldRoot + blockShift) rows.set(r, root);
      return [table, rows.store(TABLE_FIELDS[table])];
    }),
  ) as OutlineType['rows']['tables'];
  if (nothingMoved && shift.code === 0 && state.marks.length === from && state.marks.ownEquals(marks)) return { tables: result, marks };
  const markShifts = [shift.code, ...moved, 0];
  if (!rootRenamed) return { tables: result, marks: state.marks.store(MARK_FIELDS, marks.slice(from / MARK_FIELDS, marks.rowCount, markShifts)) };
  const firstNew = state.marks.length;
  state.marks.own(marks.length - from);
  state.marks.appendRows(marks, from / MARK_FIELDS, marks.rowCount, markShifts);
  // A later root graph's block moved with the blocks before it.
  for (let m = firstNew + MARK_ROOT; m < state.marks.length; m += MARK_FIELDS) {
    const markRoot = state.marks.at(m);
    state.marks.set(m, markRoot === oldRoot ? root : markRoot + blockShift);
  }
  return { tables: result, marks: state.marks.store(MARK_FIELDS) };
}
