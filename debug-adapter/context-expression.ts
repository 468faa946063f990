import type { Condition } from '../engine/conditions/condition';
import { evaluateCondition, parseCondition, stringifyContextValue } from '../engine/conditions/condition';
import type { RunContext } from '../engine/runtime/context';

/**
 * What the debugger evaluates against a live context: a condition-language expression
 * (`context.k=v && outcome=success`) or a bare key (`context.k`, `k`). Both use the engine's own
 * condition evaluator, so a breakpoint condition means exactly what an edge condition means.
 */
export type ContextExpression = { readonly kind: 'condition'; readonly condition: Condition } | { readonly kind: 'key'; readonly key: string };

const KEY = /^[A-Za-z_][A-Za-z0-9_.]*$/;

export function parseContextExpression(text: string): { ok: true; expression: ContextExpression } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (KEY.test(trimmed)) return { ok: true, expression: { kind: 'key', key: trimmed } };
  const parsed = parseCondition(trimmed);
  if (!parsed.ok) return { ok: false, message: parsed.error.message };
  return { ok: true, expression: { kind: 'condition', condition: parsed.condition } };
}

/** Resolves `context.k` to the key `context.k` when present, else `k` (as edge conditions do). */
function lookupKey(context: RunContext, key: string): unknown {
  if (context.has(key)) return context.get(key);
  if (key.startsWith('context.')) return context.get(key.slice('context.'.length));
  return context.get(key);
}

export function conditionHolds(condition: Condition, context: RunContext): boolean {
  return evaluateCondition(condition, {
    status: context.getString('outcome'),
    preferredLabel: context.getString('preferred_label'),
    lookup: (key) => context.get(key),
  });
}

export function evaluateContextExpression(expression: ContextExpression, context: RunContext): { value: unknown; display: string } {
  if (expression.kind === 'condition') {
    const holds = conditionHolds(expression.condition, context);
    return { value: holds, display: String(holds) };
  }
  const value = lookupKey(context, expression.key);
  return { value, display: value === undefined ? 'undefined' : typeof value === 'string' ? JSON.stringify(value) : stringifyContextValue(value) };
}

/** Logpoint messages: `{context.key}` or `{key}` is replaced by the value; `{{` and `}}` are literal braces. */
export function interpolateLogMessage(template: string, context: RunContext): string {
  return template.replace(/\{\{|\}\}|\{([^{}]+)\}/g, (whole, key: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const value = lookupKey(context, (key ?? '').trim());
    return value === undefined ? `{${key}: undefined}` : stringifyContextValue(value);
  });
}
