/**
 * ts-graphviz's grammar refuses raw line breaks inside quoted strings, which Graphviz and
 * Attractor pipelines (multi-line prompts, stylesheets) use freely. This pre-pass swaps each
 * line-break character inside a string for a private-use character of the same length, so every
 * offset the parser reports still points at the original text; `restoreLineBreaks` undoes it
 * in the parsed values.
 */
const LF_STANDIN = '\uE000';
const CR_STANDIN = '\uE001';

export function protectLineBreaksInStrings(text: string): string {
  let out = '';
  let segmentStart = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    const next = text[i + 1];
    if (ch === '/' && next === '/') {
      i = skipUntilLineEnd(text, i);
    } else if (ch === '#' && isLineStart(text, i)) {
      i = skipUntilLineEnd(text, i);
    } else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (ch === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < n && text[i + 1] !== '\n' && text[i + 1] !== '\r') {
          i += 2;
          continue;
        }
        if (text[i] === '\n' || text[i] === '\r') {
          out += text.slice(segmentStart, i) + (text[i] === '\n' ? LF_STANDIN : CR_STANDIN);
          segmentStart = i + 1;
        }
        i++;
      }
      i++;
    } else {
      i++;
    }
  }
  return segmentStart === 0 ? text : out + text.slice(segmentStart);
}

export function restoreLineBreaks(value: string): string {
  if (!value.includes(LF_STANDIN) && !value.includes(CR_STANDIN)) return value;
  return value.replaceAll(LF_STANDIN, '\n').replaceAll(CR_STANDIN, '\r');
}

function skipUntilLineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

function isLineStart(text: string, index: number): boolean {
  for (let j = index - 1; j >= 0; j--) {
    const c = text[j];
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t' && c !== '\r') return false;
  }
  return true;
}

/**
 * Resolves the DOT string escapes the Attractor grammar defines (canonical 2.2): \" \n \t \\.
 * Other backslash sequences (Graphviz's \l, \N ...) are kept as written.
 */
export function unescapeDotString(value: string): string {
  if (!value.includes('\\')) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch !== '\\' || i + 1 >= value.length) {
      out += ch;
      continue;
    }
    const next = value[i + 1];
    if (next === 'n') out += '\n';
    else if (next === 't') out += '\t';
    else if (next === '\\') out += '\\';
    else if (next === '"') out += '"';
    else if (next === '\n') out += '';
    else {
      out += ch;
      continue;
    }
    i++;
  }
  return out;
}
