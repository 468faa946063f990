import type { AttributeScope } from '../../model/attributes';
import { attributesFor, attributeSpec } from '../../model/attributes';
import { isChildContextAttribute } from '../../model/child-context';
import type { SpanDiagnostic } from '../../model/diagnostics';
import type { Attribute } from '../../model/graph';
import { keySpanOf } from '../../model/graph';
import { isBuiltinHandlerType } from '../../model/handler-types';
import type { LineIndex } from '../../model/source';
import { parseStylesheet, stylesheetProperties } from '../../transform/stylesheet';
import { ownerOf, writtenAttributes } from '../attribute-walk';
import { didYouMean, Speller } from '../did-you-mean';
import { renameKeyEdit, replaceValueEdit } from '../fixes';
import { analyze } from '../graph-analysis';
import type { LintRule } from '../rule';
import { integerProblem, checkValue } from '../value-checks';
import { valueRangeOf, valueSpanRange } from '../value-location';

const namesByScope: Record<AttributeScope, readonly string[]> = {
  graph: attributesFor('graph').map((spec) => spec.name),
  node: attributesFor('node').map((spec) => spec.name),
  edge: attributesFor('edge').map((spec) => spec.name),
};

/** Ours: an attribute the table does not know for its element (graph, node or edge), with a did-you-mean. */
export const unknownAttributeRule: LintRule = {
  name: 'unknown_attribute',
  tier: 'lint',
  restsOn: 'statement',
  *check(context): Iterable<SpanDiagnostic> {
    const { handlerOf } = analyze(context);
    for (const written of writtenAttributes(context.graph).all) {
      const { attribute, scope } = written;
      // A custom handler reads attributes of its own choosing.
      if (written.node && !isBuiltinHandlerType(handlerOf(written.node))) continue;
      if (written.node && isChildContextAttribute(handlerOf(written.node), attribute.key)) continue;
      const spec = attributeSpec(attribute.key);
      if (spec?.scopes.includes(scope)) continue;
      const range = keySpanOf(attribute) ?? attribute.range;
      const where = written.node || written.edge ? `on ${scope === 'node' ? `node \`${written.node?.id}\`` : 'this edge'}` : `at ${scope} level`;
      if (spec) {
        const home = spec.scopes.map((s) => (s === 'graph' ? 'the graph' : `${s}s`)).join(' and ');
        yield {
          rule: 'unknown_attribute',
          severity: 'warning',
          message: `\`${attribute.key}\` applies to ${home}; ${where} it has no effect. Move it to the right element.`,
          ...ownerOf(written),
          ...(range ? { range } : {}),
        };
        continue;
      }
      const suggestion = didYouMean(attribute.key, namesByScope[scope]);
      const rename = suggestion ? renameKeyEdit(attribute, suggestion) : undefined;
      yield {
        rule: 'unknown_attribute',
        severity: 'warning',
        message: suggestion
          ? `Unknown ${scope} attribute \`${attribute.key}\`: did you mean \`${suggestion}\`?`
          : `Unknown ${scope} attribute \`${attribute.key}\` ${where}: Attractor ignores it. Check the spelling or remove it.`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
        ...(rename ? { fix: { title: `Rename to \`${suggestion}\``, edits: [rename] } } : {}),
      };
    }
  },
};

// Attributes whose values other rules own, with the canonical rule names and severities.
const checkedElsewhere = new Set(['type', 'node_type', 'fidelity', 'default_fidelity', 'max_retries', 'default_max_retries', 'default_max_retry', 'retry_target', 'fallback_retry_target']);

/** Ours: every value fits its attribute's type in the table; node references name real nodes. */
export const attributeValueRule: LintRule = {
  name: 'attribute_value',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph, lineIndex }): Iterable<SpanDiagnostic> {
    // Made only when a reference names no node: most graphs never need it.
    let nodeIds: Speller | undefined;
    for (const written of writtenAttributes(graph).all) {
      const { attribute, scope } = written;
      const spec = attributeSpec(attribute.key);
      if (!spec?.scopes.includes(scope) || checkedElsewhere.has(spec.name) || attribute.value.trim() === '') continue;
      if (spec.type.kind === 'node-ref' || spec.type.kind === 'node-ref-list') {
        for (const { id, start } of splitIds(attribute.value, spec.type.kind === 'node-ref-list')) {
          if (graph.nodes.has(id)) continue;
          const suggestion = (nodeIds ??= new Speller(graph.nodes.keys())).suggest(id);
          const range = valueSpanRange(lineIndex, attribute, start, start + id.length);
          const edit = suggestion ? replaceInValue(attribute, start, id, suggestion) : undefined;
          yield {
            rule: 'attribute_value',
            severity: 'error',
            message: `\`${attribute.key}\` names \`${id}\`, which is not a node${suggestion ? `: did you mean \`${suggestion}\`?` : ': use the id of an existing node.'}`,
            ...ownerOf(written),
            ...(range ? { range } : {}),
            ...(edit ? { fix: { title: `Change to \`${suggestion}\``, edits: [edit] } } : {}),
          };
        }
        continue;
      }
      // With an explicit handler type the shape only draws the node (the reference's `Start [shape=circle, type="start"]`).
      if (spec.name === 'shape' && written.node && ['type', 'node_type'].some((key) => written.node?.attributes.has(key))) continue;
      const problem = checkValue(spec.type, attribute.value);
      if (!problem) continue;
      const range = problem.span ? valueSpanRange(lineIndex, attribute, problem.span.start, problem.span.end) : valueRangeOf(attribute);
      const edit = problem.replacement !== undefined ? replaceValueEdit(attribute, problem.replacement) : undefined;
      yield {
        rule: 'attribute_value',
        severity: problem.severity,
        message: `\`${attribute.key}\`: ${problem.message}${problem.replacement !== undefined ? ` (did you mean \`${problem.replacement}\`?)` : ''}.`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
        ...(edit ? { fix: { title: `Change to \`${problem.replacement}\``, edits: [edit] } } : {}),
      };
    }
    yield* stylesheetValueProblems(graph.attributes.get('model_stylesheet'), lineIndex);
  },
};

function* stylesheetValueProblems(attribute: Attribute | undefined, lineIndex: LineIndex): Iterable<SpanDiagnostic> {
  if (!attribute || attribute.origin !== 'explicit') return;
  for (const rule of parseStylesheet(attribute.value).rules) {
    for (const declaration of rule.declarations) {
      const spec = attributeSpec(declaration.property);
      if (!spec || !(stylesheetProperties as readonly string[]).includes(spec.name)) continue;
      const problem = checkValue(spec.type, declaration.value);
      if (!problem) continue;
      const at = attribute.value.indexOf(declaration.value, declaration.start + declaration.property.length);
      const start = at < 0 ? declaration.start : at;
      const end = at < 0 ? declaration.end : at + declaration.value.length;
      const range = valueSpanRange(lineIndex, attribute, start, end);
      yield {
        rule: 'attribute_value',
        severity: problem.severity,
        message: `model_stylesheet \`${rule.selectorText}\` sets \`${declaration.property}\`: ${problem.message}.`,
        ...(range ? { range } : {}),
      };
    }
  }
}

function splitIds(value: string, list: boolean): { id: string; start: number }[] {
  const parts = list ? [...value.matchAll(/[^,]+/g)].map((m) => ({ text: m[0], at: m.index ?? 0 })) : [{ text: value, at: 0 }];
  return parts
    .map(({ text, at }) => ({ id: text.trim(), start: at + (text.length - text.trimStart().length) }))
    .filter(({ id }) => id !== '');
}

function replaceInValue(attribute: Attribute, start: number, id: string, replacement: string) {
  return replaceValueEdit(attribute, attribute.value.slice(0, start) + replacement + attribute.value.slice(start + id.length));
}

/** Canonical §7.2 type_known: an explicit handler type the registry (built-in or custom) knows. */
export const typeKnownRule: LintRule = {
  name: 'type_known',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph, knownHandlerTypes }): Iterable<SpanDiagnostic> {
    for (const written of writtenAttributes(graph).withKey('type', 'node_type')) {
      const { attribute } = written;
      if (written.scope !== 'node') continue;
      if (attribute.value === '' || knownHandlerTypes.has(attribute.value)) continue;
      const suggestion = didYouMean(attribute.value, knownHandlerTypes);
      const edit = suggestion ? replaceValueEdit(attribute, suggestion) : undefined;
      const range = valueRangeOf(attribute);
      yield {
        rule: 'type_known',
        severity: 'warning',
        message: `Handler type "${attribute.value}" is not registered${suggestion ? `: did you mean \`${suggestion}\`?` : `; the run fails when it reaches this node unless a custom handler registers it. Known: ${[...knownHandlerTypes].join(', ')}.`}`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
        ...(edit ? { fix: { title: `Change to \`${suggestion}\``, edits: [edit] } } : {}),
      };
    }
  },
};

/** Canonical §7.2 fidelity_valid: node/edge `fidelity` and graph `default_fidelity` are known modes. */
export const fidelityValidRule: LintRule = {
  name: 'fidelity_valid',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph }): Iterable<SpanDiagnostic> {
    for (const written of writtenAttributes(graph).withKey('fidelity', 'default_fidelity')) {
      const { attribute } = written;
      const spec = attributeSpec(attribute.key);
      if (!spec?.scopes.includes(written.scope) || attribute.value === '') continue;
      const problem = checkValue(spec.type, attribute.value);
      if (!problem) continue;
      const edit = problem.replacement !== undefined ? replaceValueEdit(attribute, problem.replacement) : undefined;
      const range = valueRangeOf(attribute);
      yield {
        rule: 'fidelity_valid',
        severity: 'warning',
        message: `Fidelity ${problem.message}${problem.replacement !== undefined ? ` (did you mean \`${problem.replacement}\`?)` : ''}; the run falls back to compact.`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
        ...(edit ? { fix: { title: `Change to \`${problem.replacement}\``, edits: [edit] } } : {}),
      };
    }
  },
};

/** Ledger retry_budget_non_negative: node max_retries and both graph spellings are integers ≥ 0. */
export const retryBudgetRule: LintRule = {
  name: 'retry_budget_non_negative',
  tier: 'validate',
  restsOn: 'statement',
  *check({ graph }): Iterable<SpanDiagnostic> {
    for (const written of writtenAttributes(graph).withKey('max_retries', 'default_max_retries', 'default_max_retry')) {
      const { attribute, scope } = written;
      const isBudget = scope === 'node' ? attribute.key === 'max_retries' : scope === 'graph' && (attribute.key === 'default_max_retries' || attribute.key === 'default_max_retry');
      if (!isBudget) continue;
      const problem = integerProblem(attribute.value, 0);
      if (!problem) continue;
      const range = valueRangeOf(attribute);
      yield {
        rule: 'retry_budget_non_negative',
        severity: 'error',
        message: `\`${attribute.key}\`: ${problem}. A retry budget is a whole number of extra attempts, 0 or more.`,
        ...ownerOf(written),
        ...(range ? { range } : {}),
      };
    }
  },
};
