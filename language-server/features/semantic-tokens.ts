/** Semantic tokens: node ids, attribute keys by kind, handler shapes and enum values, condition parts, variables. */
import type { SemanticTokens, SemanticTokensLegend } from 'vscode-languageserver';
import { SemanticTokensBuilder } from 'vscode-languageserver';
import { parseCondition } from '../../engine/conditions/condition';
import { attributeSpec } from '../../engine/model/attributes';
import { shapes } from '../../engine/model/handler-types';
import { findVariables } from '../../engine/transform/variables';
import type { DocumentView } from '../analysis/document-analysis';
import { nodeOccurrences } from '../analysis/node-occurrences';
import { forEachSetting } from '../syntax/outline';
import { HTML } from '../syntax/scanner';
import { documentSpan, tokenContent } from '../syntax/string-content';
import { statusValues } from './completion-condition';

const tokenTypes = ['namespace', 'variable', 'property', 'type', 'enumMember', 'keyword', 'operator', 'macro'] as const;
const tokenModifiers = ['declaration', 'defaultLibrary', 'deprecated'] as const;
type TokenType = (typeof tokenTypes)[number];
type TokenModifier = (typeof tokenModifiers)[number];

export const semanticTokensLegend: SemanticTokensLegend = { tokenTypes: [...tokenTypes], tokenModifiers: [...tokenModifiers] };

interface Mark {
  readonly start: number;
  readonly end: number;
  readonly type: TokenType;
  readonly modifiers: readonly TokenModifier[];
}

const shapeNames = new Set(shapes.map((s) => s.shape));

export function semanticTokens(analysis: DocumentView): SemanticTokens {
  const marks: Mark[] = [];
  const mark = (start: number, end: number, type: TokenType, ...modifiers: TokenModifier[]) => {
    if (end > start) marks.push({ start, end, type, modifiers });
  };
  const { outline } = analysis;
  for (const block of outline.blocks) if (block.name) mark(block.name.start, block.name.end, 'namespace', 'declaration');
  for (const occurrence of nodeOccurrences(outline)) mark(occurrence.start, occurrence.end, 'variable', ...(occurrence.kind === 'declaration' ? ['declaration' as const] : []));

  forEachSetting(outline, (key, value) => {
    const spec = attributeSpec(outline.valueOf(key));
    if (!spec) return;
    const modifiers: TokenModifier[] = [...(spec.type.kind === 'graphviz' ? ['defaultLibrary' as const] : []), ...(spec.aliasOf ? ['deprecated' as const] : [])];
    mark(outline.startOf(key), outline.endOf(key), 'property', ...modifiers);
    if (value < 0 || outline.kindOf(value) === HTML) return;
    const content = tokenContent(outline.token(value));
    const span = (start: number, end: number) => documentSpan(content, start, end);
    const whole = span(0, content.value.length);
    switch (spec.type.kind) {
      case 'enum':
      case 'boolean': {
        const known = spec.type.kind === 'boolean' ? ['true', 'false'].includes(content.value) : spec.type.values.some((v) => v.value === content.value);
        if (known) mark(whole.start, whole.end, spec.name === 'shape' && shapeNames.has(content.value) ? 'type' : 'enumMember');
        break;
      }
      case 'condition': {
        const parsed = parseCondition(content.value);
        if (!parsed.ok) break;
        let previousEnd = 0;
        for (const clause of parsed.condition.clauses) {
          const and = content.value.indexOf('&&', previousEnd);
          if (and >= 0 && and < clause.span.start) mark(span(and, and + 2).start, span(and, and + 2).end, 'operator');
          const keySpan = span(clause.keySpan.start, clause.keySpan.end);
          mark(keySpan.start, keySpan.end, clause.key.kind === 'outcome' || clause.key.kind === 'preferred_label' ? 'keyword' : 'variable');
          const operatorStart = content.value.indexOf(clause.operator, clause.keySpan.end);
          const op = span(operatorStart, operatorStart + clause.operator.length);
          mark(op.start, op.end, 'operator');
          if (clause.key.kind === 'outcome' && statusValues.some((s) => s.value === clause.literal)) {
            const literal = span(clause.literalSpan.start, clause.literalSpan.end);
            mark(literal.start, literal.end, 'enumMember');
          }
          previousEnd = clause.span.end;
        }
        break;
      }
      case 'text':
      case 'command':
        for (const variable of findVariables(content.value)) {
          const s = span(variable.start, variable.end);
          mark(s.start, s.end, 'macro');
        }
        break;
      default:
        break;
    }
  });

  marks.sort((a, b) => a.start - b.start);
  const builder = new SemanticTokensBuilder();
  let lastEnd = -1;
  for (const m of marks) {
    if (m.start < lastEnd) continue; // overlapping marks: the first wins
    const start = analysis.lineIndex.positionAt(m.start);
    const end = analysis.lineIndex.positionAt(m.end);
    if (start.line !== end.line) continue; // tokens may not span lines
    const modifierBits = m.modifiers.reduce((bits, modifier) => bits | (1 << tokenModifiers.indexOf(modifier)), 0);
    builder.push(start.line, start.character, m.end - m.start, tokenTypes.indexOf(m.type), modifierBits);
    lastEnd = m.end;
  }
  return builder.build();
}
