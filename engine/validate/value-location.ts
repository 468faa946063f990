import type { Attribute } from '../model/graph';
import { keySpanOf, valueSpanOf } from '../model/graph';
import type { LineIndex, SourceSpan } from '../model/source';

/**
 * Maps each index of an attribute's unescaped value (0..value.length) to its offset in the source,
 * following the escapes the parser resolves (\" \n \t \\ and backslash-newline). Undefined when
 * the value has no source text or the text does not reproduce the value (a transform rewrote it).
 */
function sourceOffsets(lineIndex: LineIndex, attribute: Attribute): number[] | undefined {
  const range = valueSpanOf(attribute);
  if (!range) return undefined;
  const raw = lineIndex.text.slice(range.start, range.end);
  if (!attribute.quoted) {
    if (raw !== attribute.value) return undefined;
    return Array.from({ length: raw.length + 1 }, (_, i) => range.start + i);
  }
  const offsets: number[] = [];
  const base = range.start + 1;
  const body = raw.slice(1, -1);
  let value = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    const next = body[i + 1];
    if (ch === '\\' && next !== undefined && 'nt\\"\n'.includes(next)) {
      if (next !== '\n') {
        offsets.push(base + i);
        value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      }
      i++;
      continue;
    }
    offsets.push(base + i);
    value += ch;
  }
  offsets.push(base + body.length);
  return value === attribute.value ? offsets : undefined;
}

/** The exact source range of `value.slice(start, end)`, or undefined when the value has no faithful source text. */
export function locateInValue(lineIndex: LineIndex, attribute: Attribute, start: number, end: number): SourceSpan | undefined {
  const offsets = sourceOffsets(lineIndex, attribute);
  if (!offsets) return undefined;
  const clamp = (i: number) => Math.max(0, Math.min(i, offsets.length - 1));
  return { start: offsets[clamp(start)] as number, end: offsets[clamp(Math.max(end, start))] as number };
}

/** The source range of `value.slice(start, end)`, or the whole value when it cannot be located. */
export function valueSpanRange(lineIndex: LineIndex, attribute: Attribute, start: number, end: number): SourceSpan | undefined {
  return locateInValue(lineIndex, attribute, start, end) ?? valueRangeOf(attribute);
}

/** Where to point for an attribute's value: the value token, or the whole `key=value`. */
export function valueRangeOf(attribute: Attribute): SourceSpan | undefined {
  return valueSpanOf(attribute) ?? attribute.range;
}

/** Where to point for an attribute as a whole: `key=value`, or the value when the key is unknown. */
export function attributeRangeOf(attribute: Attribute): SourceSpan | undefined {
  const key = keySpanOf(attribute);
  const value = valueSpanOf(attribute);
  if (key && value) return { start: key.start, end: value.end };
  return attribute.range ?? value;
}
