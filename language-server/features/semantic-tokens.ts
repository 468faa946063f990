/** Semantic tokens: node ids, attribute keys by kind, handler shapes and enum values, condition parts, variables. */
import type { SemanticTokens, SemanticTokensLegend } from 'vscode-languageserver';
import { parseCondition } from '../../engine/conditions/condition';
import type { AttributeSpec } from '../../engine/model/attributes';
import { attributeSpec } from '../../engine/model/attributes';
import type { LineIndex } from '../../engine/model/source';
import { shapes } from '../../engine/model/handler-types';
import { findVariables } from '../../engine/transform/variables';
import type { DocumentView } from '../analysis/document-analysis';
import { nodeOccurrences } from '../analysis/node-occurrences';
import type { Outline } from '../syntax/outline';
import { forEachSetting } from '../syntax/outline';
import { BLOCK } from '../syntax/outline-rows';
import { HTML } from '../syntax/scanner';
import type { TokenContent } from '../syntax/string-content';
import { documentSpan, tokenContent } from '../syntax/string-content';
import { statusValues } from './completion-condition';

const tokenTypes = ['namespace', 'variable', 'property', 'type', 'enumMember', 'keyword', 'operator', 'macro'] as const;
const tokenModifiers = ['declaration', 'defaultLibrary', 'deprecated'] as const;
type TokenType = (typeof tokenTypes)[number];

export const semanticTokensLegend: SemanticTokensLegend = { tokenTypes: [...tokenTypes], tokenModifiers: [...tokenModifiers] };

const shapeNames = new Set(shapes.map((s) => s.shape));
const typeIndex = (type: TokenType): number => tokenTypes.indexOf(type);
const DECLARATION = 1 << tokenModifiers.indexOf('declaration');
const DEFAULT_LIBRARY = 1 << tokenModifiers.indexOf('defaultLibrary');
const DEPRECATED = 1 << tokenModifiers.indexOf('deprecated');

/**
 * The marks of a text as flat rows of numbers (start, end, type, modifier bits): a 5,000-node
 * pipeline has about 100,000 of them, asked for again after every edit.
 */
class Marks {
  private readonly rows: number[] = [];

  add(start: number, end: number, type: TokenType, modifiers = 0): void {
    if (end > start) this.rows.push(start, end, typeIndex(type), modifiers);
  }

  /** In document order, the first of overlapping marks kept, encoded as LSP's relative five-number tokens. */
  encode(lines: LineIndex): SemanticTokens {
    const rows = this.rows;
    const count = rows.length / 4;
    // Sorted by start, then by the order added, as exact doubles start · scale + k (texts are far below 2^26).
    const scale = 2 ** Math.ceil(Math.log2(count + 1));
    const order = new Float64Array(count);
    for (let k = 0; k < count; k++) order[k] = (rows[k * 4] as number) * scale + k;
    order.sort();
    const data: number[] = [];
    let lastEnd = -1;
    let previousLine = 0;
    let previousCharacter = 0;
    for (const key of order) {
      const row = (key % scale) * 4;
      const start = rows[row] as number;
      const end = rows[row + 1] as number;
      if (start < lastEnd) continue; // overlapping marks: the first wins
      const from = lines.positionAt(start);
      if (lines.positionAt(end).line !== from.line) continue; // tokens may not span lines
      data.push(from.line - previousLine, from.line === previousLine ? from.character - previousCharacter : from.character, end - start, rows[row + 2] as number, rows[row + 3] as number);
      previousLine = from.line;
      previousCharacter = from.character;
      lastEnd = end;
    }
    return { data };
  }
}

export function semanticTokens(analysis: DocumentView): SemanticTokens {
  const marks = new Marks();
  const { outline } = analysis;
  for (let row = 0, count = outline.count('blocks'); row < count; row++) {
    const name = outline.field('blocks', row, BLOCK.name);
    if (name >= 0) marks.add(outline.startOf(name), outline.endOf(name), 'namespace', DECLARATION);
  }
  for (const occurrence of nodeOccurrences(outline)) marks.add(occurrence.start, occurrence.end, 'variable', occurrence.kind === 'declaration' ? DECLARATION : 0);
  forEachSetting(outline, (key, value) => {
    const spec = attributeSpec(outline.valueOf(key));
    if (!spec) return;
    marks.add(outline.startOf(key), outline.endOf(key), 'property', (spec.type.kind === 'graphviz' ? DEFAULT_LIBRARY : 0) | (spec.aliasOf ? DEPRECATED : 0));
    if (value >= 0 && outline.kindOf(value) !== HTML) markValue(marks, spec, outline, value);
  });
  return marks.encode(analysis.lineIndex);
}

function markValue(marks: Marks, spec: AttributeSpec, outline: Outline, value: number): void {
  switch (spec.type.kind) {
    case 'enum':
    case 'boolean': {
      const content = tokenContent(outline.token(value));
      const known = spec.type.kind === 'boolean' ? content.value === 'true' || content.value === 'false' : spec.type.values.some((v) => v.value === content.value);
      const whole = documentSpan(content, 0, content.value.length);
      if (known) marks.add(whole.start, whole.end, spec.name === 'shape' && shapeNames.has(content.value) ? 'type' : 'enumMember');
      break;
    }
    case 'condition':
      markCondition(marks, tokenContent(outline.token(value)));
      break;
    case 'text':
    case 'command':
      // Prompts are long and mostly hold no variable: decode only those that may.
      if (outline.textOf(value).includes('$')) {
        const content = tokenContent(outline.token(value));
        for (const variable of findVariables(content.value)) {
          const span = documentSpan(content, variable.start, variable.end);
          marks.add(span.start, span.end, 'macro');
        }
      }
      break;
    default:
      break;
  }
}

function markCondition(marks: Marks, content: TokenContent): void {
  const parsed = parseCondition(content.value);
  if (!parsed.ok) return;
  const mark = (start: number, end: number, type: TokenType) => {
    const span = documentSpan(content, start, end);
    marks.add(span.start, span.end, type);
  };
  let previousEnd = 0;
  for (const clause of parsed.condition.clauses) {
    const and = content.value.indexOf('&&', previousEnd);
    if (and >= 0 && and < clause.span.start) mark(and, and + 2, 'operator');
    mark(clause.keySpan.start, clause.keySpan.end, clause.key.kind === 'outcome' || clause.key.kind === 'preferred_label' ? 'keyword' : 'variable');
    const operatorStart = content.value.indexOf(clause.operator, clause.keySpan.end);
    mark(operatorStart, operatorStart + clause.operator.length, 'operator');
    if (clause.key.kind === 'outcome' && statusValues.some((s) => s.value === clause.literal)) mark(clause.literalSpan.start, clause.literalSpan.end, 'enumMember');
    previousEnd = clause.span.end;
  }
}
