/**
 * Mid-edit recovery. The engine's parser stops at the first syntax error, so a text being typed
 * usually has no model. Blanking the offending lines with spaces (and closing open blocks at the
 * end) keeps every other offset where it was, so the recovered model's ranges still point into
 * the real text.
 */
import type { PreparedPipeline } from '../../engine/prepare';
import { preparePipeline } from '../../engine/prepare';
import type { Outline } from '../syntax/outline';
import { buildOutline } from '../syntax/outline';

const MAX_ATTEMPTS = 4;

/** `hints` are offsets worth blanking first: where the user last edited, where the parser failed. */
export function recoverModel(text: string, outline: Outline, hints: readonly number[], sourcePath: string | undefined): PreparedPipeline | undefined {
  let candidate = text;
  for (const token of outline.tokens) if (!token.terminated) candidate = blankLine(candidate, token.start);
  for (const hint of hints) candidate = blankLine(candidate, hint);
  candidate = closeOpenBlocks(candidate, buildOutline(candidate));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const prepared = preparePipeline(candidate, { ...(sourcePath ? { sourcePath } : {}), mode: 'validate' });
    if (prepared.graph) return prepared;
    const syntax = prepared.diagnostics.find((d) => d.rule === 'syntax');
    if (!syntax?.range) return undefined;
    const next = blankAtOrBefore(candidate, Math.min(syntax.range.start.offset, candidate.length - 1));
    if (next === candidate) return undefined;
    candidate = next;
  }
  return undefined;
}

function closeOpenBlocks(text: string, outline: Outline): string {
  const open = outline.blocks.filter((block) => !block.close).length;
  return open > 0 ? `${text}\n${'}'.repeat(open)}` : text;
}

/** The parser often fails at the token after the culprit (a `}` after a dangling `a ->`): walk back to a line worth blanking. */
function blankAtOrBefore(text: string, offset: number): string {
  for (let at = offset; at >= 0; at = text.lastIndexOf('\n', at - 1) - 1) {
    const next = blankLine(text, Math.max(at, 0));
    if (next !== text) return next;
    if (at <= 0) break;
  }
  return text;
}

/** Replaces the line around `offset` with spaces (line breaks stay, so positions do not move). */
function blankLine(text: string, offset: number): string {
  if (offset < 0 || offset > text.length) return text;
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const newline = text.indexOf('\n', offset);
  const end = newline < 0 ? text.length : newline;
  const line = text.slice(start, end);
  if (!line.trim() || /^\s*}+\s*$/.test(line)) return text;
  return text.slice(0, start) + line.replace(/[^\r]/g, ' ') + text.slice(end);
}
