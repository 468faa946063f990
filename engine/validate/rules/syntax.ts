import { attributeTable } from '../../model/attributes';
import type { SpanDiagnostic } from '../../model/diagnostics';
import { parseStylesheet } from '../../transform/stylesheet';
import { ownerOf, writtenAttributes } from '../attribute-walk';
import { conditionParse } from '../edge-conditions';
import type { LintRule } from '../rule';
import { valueSpanRange } from '../value-location';

const conditionKeys = attributeTable.filter((spec) => spec.type.kind === 'condition').map((spec) => spec.name);

/** Canonical §7.2/§10: every condition (edge `condition`, `manager.stop_condition`) parses. */
export const conditionSyntaxRule: LintRule = {
  name: 'condition_syntax',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph, lineIndex }): Iterable<SpanDiagnostic> {
    for (const written of writtenAttributes(graph).withKey(...conditionKeys)) {
      const { attribute } = written;
      const parsed = conditionParse(graph, attribute.value);
      if (parsed.ok) continue;
      const range = valueSpanRange(lineIndex, attribute, parsed.error.span.start, parsed.error.span.end);
      yield {
        rule: 'condition_syntax',
        severity: 'error',
        message: `Invalid ${attribute.key} "${attribute.value}": ${parsed.error.message}. Clauses are \`key=value\` or \`key!=value\` joined by \`&&\`.`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
      };
    }
  },
};

/** Canonical §7.2/§8: model_stylesheet parses; each error points inside the attribute value. */
export const stylesheetSyntaxRule: LintRule = {
  name: 'stylesheet_syntax',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph, lineIndex }): Iterable<SpanDiagnostic> {
    const attribute = graph.attributes.get('model_stylesheet');
    if (!attribute || attribute.origin !== 'explicit') return;
    for (const error of parseStylesheet(attribute.value).errors) {
      const range = valueSpanRange(lineIndex, attribute, error.start, error.end);
      yield { rule: 'stylesheet_syntax', severity: 'error', message: `model_stylesheet: ${error.message}.`, ...(range ? { range } : {}) };
    }
  },
};
