import type { ValueType } from '../model/attributes';
import { parseDuration } from '../model/duration';
import { didYouMean } from './did-you-mean';

export interface ValueProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** The corrected value, when the repair is obvious. */
  readonly replacement?: string;
  /** Offsets of the offending part inside the value, when narrower than the whole value. */
  readonly span?: { readonly start: number; readonly end: number };
}

const BOOLEAN_SYNONYMS: Readonly<Record<string, string>> = { yes: 'true', no: 'false', on: 'true', off: 'false', '1': 'true', '0': 'false' };

/** Non-negative integer parsing with the reasons the retry ledger entry names (negative, boolean, fractional, unparseable). */
export function integerProblem(value: string, min?: number): string | undefined {
  const trimmed = value.trim();
  if (/^(true|false)$/i.test(trimmed)) return `"${value}" is a boolean, not an integer`;
  if (/^[+-]?\d+$/.test(trimmed)) {
    const n = Number(trimmed);
    if (min !== undefined && n < min) return min === 0 ? `${trimmed} is negative` : `${trimmed} is below the minimum ${min}`;
    return undefined;
  }
  if (/^[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return `${trimmed} is fractional, not an integer`;
  return `"${value}" is not an integer`;
}

export function checkValue(type: ValueType, value: string): ValueProblem | undefined {
  switch (type.kind) {
    case 'integer': {
      const problem = integerProblem(value, type.min);
      return problem ? { severity: 'error', message: `${problem}: write a whole number${type.min !== undefined ? ` ≥ ${type.min}` : ''}` } : undefined;
    }
    case 'number': {
      const n = Number(value.trim());
      if (value.trim() === '' || !Number.isFinite(n)) return { severity: 'error', message: `"${value}" is not a number` };
      if ((type.min !== undefined && n < type.min) || (type.max !== undefined && n > type.max)) {
        return { severity: 'error', message: `${value.trim()} is out of range: use a number from ${type.min ?? '-∞'} to ${type.max ?? '∞'}` };
      }
      return undefined;
    }
    case 'boolean': {
      const lower = value.trim().toLowerCase();
      if (lower === 'true' || lower === 'false') return undefined;
      const replacement = BOOLEAN_SYNONYMS[lower];
      return { severity: 'error', message: `"${value}" is not a boolean: write true or false`, ...(replacement ? { replacement } : {}) };
    }
    case 'duration': {
      const parsed = parseDuration(value, type.bareUnit);
      return parsed.ok ? undefined : { severity: 'error', message: parsed.message };
    }
    case 'enum': {
      const values = type.values.map((v) => v.value);
      if (values.includes(value)) return undefined;
      const exactCase = values.find((v) => v.toLowerCase() === value.toLowerCase());
      const replacement = exactCase ?? didYouMean(value, values);
      const list = values.join(', ');
      return type.open
        ? { severity: 'warning', message: `"${value}" is not one of the values Attractor knows (${list})`, ...(replacement ? { replacement } : {}) }
        : { severity: 'error', message: `"${value}" is not one of ${list}`, ...(replacement ? { replacement } : {}) };
    }
    case 'env':
      return envProblem(value);
    case 'key-list':
      return keyListProblem(value);
    case 'path-list':
      return value.split(',').some((entry) => entry.trim() === '') ? { severity: 'error', message: 'empty path in the list: remove the extra comma' } : undefined;
    default:
      return undefined;
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** tool_env: a JSON object of scalars, or entries separated by commas or newlines: `KEY=VALUE`, or a context key (reference form). */
function envProblem(value: string): ValueProblem | undefined {
  if (value.trim().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      return { severity: 'error', message: `tool_env looks like JSON but does not parse (${(error as Error).message})` };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { severity: 'error', message: 'tool_env JSON must be an object of NAME: value' };
    for (const [name, entry] of Object.entries(parsed)) {
      if (!ENV_NAME.test(name)) return { severity: 'error', message: `"${name}" is not an environment variable name` };
      if (typeof entry === 'object' && entry !== null) return { severity: 'error', message: `tool_env "${name}" must be a string, number or boolean` };
    }
    return undefined;
  }
  const pattern = /[^,\n]+/g;
  for (const match of value.matchAll(pattern)) {
    const entry = match[0];
    if (entry.trim() === '') continue;
    const start = (match.index ?? 0) + (entry.length - entry.trimStart().length);
    const trimmed = entry.trim();
    const eq = trimmed.indexOf('=');
    const name = eq < 0 ? trimmed : trimmed.slice(0, eq);
    if (eq < 0 ? !CONTEXT_KEY.test(name) : !ENV_NAME.test(name)) {
      return {
        severity: 'error',
        message: eq < 0 ? `tool_env entry "${trimmed}" is neither NAME=value nor a context key` : `"${name}" is not an environment variable name`,
        span: { start, end: start + trimmed.length },
      };
    }
  }
  return undefined;
}

const CONTEXT_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function keyListProblem(value: string): ValueProblem | undefined {
  let offset = 0;
  for (const part of value.split(',')) {
    const key = part.trim();
    const start = offset + (part.length - part.trimStart().length);
    offset += part.length + 1;
    if (!CONTEXT_KEY.test(key)) {
      return { severity: 'error', message: key === '' ? 'empty key in the list: remove the extra comma' : `"${key}" is not a context key`, span: { start, end: start + Math.max(key.length, 1) } };
    }
  }
  return undefined;
}
