// Runtime validators for data crossing a trust boundary. A Check returns a fresh value holding only
// the fields it declares (unknown keys are dropped), so nothing unvalidated leaks past it. Each check
// built here also carries the JSON Schema (2020-12) of what it accepts: the server's API document
// (serve-contract.ts) is generated from the very checks its server and clients validate with.
import { isRecord } from '../../engine/model/json';

export type CheckResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };
export type JsonSchema = Readonly<Record<string, unknown>>;
export type Check<T> = ((value: unknown, path: string) => CheckResult<T>) & { readonly schema?: JsonSchema };
export type Infer<C> = C extends Check<infer T> ? T : never;

/** A check with the schema of what it accepts. */
function described<T>(check: (value: unknown, path: string) => CheckResult<T>, schema: JsonSchema): Check<T> {
  return Object.assign(check, { schema });
}

/** The JSON Schema a check carries; one built without a schema accepts anything as far as it can say. */
export function schemaOf(check: Check<unknown>): JsonSchema {
  return check.schema ?? {};
}

const ok = <T>(value: T): CheckResult<T> => ({ ok: true, value });
const fail = (path: string, expected: string, value: unknown): CheckResult<never> => ({
  ok: false,
  error: `${path || 'message'}: expected ${expected}, got ${describe(value)}`,
});

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? 'a string' : JSON.stringify(value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** Strings are capped so a hostile or runaway message cannot make the webview hold gigabytes. */
export function text(maxLength = 10_000_000): Check<string> {
  return described(
    (value, path) => (typeof value !== 'string' ? fail(path, 'a string', value) : value.length > maxLength ? fail(path, `at most ${maxLength} characters`, 'a longer string') : ok(value)),
    { type: 'string', maxLength },
  );
}

/** A string matching `pattern` (anchored by the caller), `what` in the error. */
export function matching(pattern: RegExp, what: string): Check<string> {
  return described((value, path) => (typeof value === 'string' && pattern.test(value) ? ok(value) : fail(path, what, value)), { type: 'string', pattern: pattern.source, description: what });
}

export const finiteNumber: Check<number> = described((value, path) => (typeof value === 'number' && Number.isFinite(value) ? ok(value) : fail(path, 'a finite number', value)), { type: 'number' });

export const count: Check<number> = described((value, path) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? ok(value) : fail(path, 'a non-negative integer', value)), { type: 'integer', minimum: 0 });

export const boolean: Check<boolean> = described((value, path) => (typeof value === 'boolean' ? ok(value) : fail(path, 'a boolean', value)), { type: 'boolean' });

/** Exactly `expected` (`true` of `{"skipped": true}`). */
export function literal<const T extends string | boolean>(expected: T): Check<T> {
  return described((value, path) => (value === expected ? ok(expected) : fail(path, JSON.stringify(expected), value)), { const: expected });
}

export function oneOf<const T extends readonly string[]>(values: T): Check<T[number]> {
  return described((value, path) => (typeof value === 'string' && values.includes(value) ? ok(value as T[number]) : fail(path, `one of ${values.join(', ')}`, value)), { type: 'string', enum: values });
}

/** A figure its source may not know (usage a server never reported): the literal 'unknown' or the value. */
export function orUnknown<T>(check: Check<T>): Check<T | 'unknown'> {
  return described<T | 'unknown'>((value, path) => (value === 'unknown' ? ok('unknown' as const) : check(value, path)), { anyOf: [{ const: 'unknown' }, schemaOf(check)] });
}

export function nullable<T>(check: Check<T>): Check<T | null> {
  return described<T | null>((value, path) => (value === null ? ok(null) : check(value, path)), { anyOf: [schemaOf(check), { type: 'null' }] });
}

/** Any JSON value, passed on as it is (a checkpoint's state, a context): the receiver reads it as opaque data. */
export const anyJson: Check<unknown> = described((value) => ok(value), {});

export function list<T>(item: Check<T>, maxLength = 1_000_000): Check<readonly T[]> {
  return described((value, path) => {
    if (!Array.isArray(value)) return fail(path, 'an array', value);
    if (value.length > maxLength) return fail(path, `at most ${maxLength} items`, value);
    const out: T[] = [];
    for (let i = 0; i < value.length; i++) {
      const result = item(value[i], `${path}[${i}]`);
      if (!result.ok) return result;
      out.push(result.value);
    }
    return ok(out);
  }, { type: 'array', items: schemaOf(item), maxItems: maxLength });
}

/** A string-keyed map of checked values, for records keyed by node id. */
export function dictionary<T>(item: Check<T>): Check<Readonly<Record<string, T>>> {
  return described((value, path) => {
    if (!isRecord(value)) return fail(path, 'an object', value);
    const out: Record<string, T> = Object.create(null) as Record<string, T>;
    for (const [key, entry] of Object.entries(value)) {
      const result = item(entry, `${path}.${key}`);
      if (!result.ok) return result;
      out[key] = result.value;
    }
    return ok(out);
  }, { type: 'object', additionalProperties: schemaOf(item) });
}

type Shape = Record<string, Check<unknown>>;
type Required<R extends Shape> = { readonly [K in keyof R]: Infer<R[K]> };
type Optional<O extends Shape> = { readonly [K in keyof O]?: Infer<O[K]> };
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * An object with `required` fields and `optional` ones (absent or undefined both mean absent). A
 * `closed` one (a request body) refuses fields it does not declare; an open one drops them.
 */
export function object<R extends Shape, O extends Shape = Record<never, never>>(required: R, optional?: O, { closed = false } = {}): Check<Flatten<Required<R> & Optional<O>>> {
  const fields = { ...required, ...optional };
  const schema = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(fields).map(([key, check]) => [key, schemaOf(check)])),
    required: Object.keys(required),
    ...(closed ? { additionalProperties: false } : {}),
  };
  return described((value, path) => {
    if (!isRecord(value)) return fail(path, 'an object', value);
    const unknown = closed ? Object.keys(value).filter((key) => !Object.hasOwn(fields, key)) : [];
    if (unknown.length > 0) return { ok: false, error: `${path ? `${path}: ` : ''}unknown field(s): ${unknown.join(', ')} (expected ${Object.keys(fields).join(', ')})` };
    const out: Record<string, unknown> = {};
    for (const [key, check] of Object.entries(required)) {
      const result = check(value[key], path ? `${path}.${key}` : key);
      if (!result.ok) return result;
      out[key] = result.value;
    }
    for (const [key, check] of Object.entries(optional ?? {})) {
      if (value[key] === undefined) continue;
      const result = check(value[key], path ? `${path}.${key}` : key);
      if (!result.ok) return result;
      out[key] = result.value;
    }
    return ok(out as Flatten<Required<R> & Optional<O>>);
  }, schema);
}

/** A union discriminated by the `key` field (default `type`); each variant's check sees the whole object. */
export function tagged<V extends Record<string, Check<object>>, K extends string = 'type'>(
  variants: V,
  key: K = 'type' as K,
): Check<{ [T in keyof V]: Flatten<Infer<V[T]> & { readonly [P in K]: T }> }[keyof V]> {
  const schema = {
    oneOf: Object.entries(variants).map(([tag, check]) => {
      const variant = schemaOf(check);
      const properties = isRecord(variant.properties) ? variant.properties : {};
      const required = Array.isArray(variant.required) ? variant.required : [];
      return { ...variant, type: 'object', properties: { ...properties, [key]: { const: tag } }, required: [key, ...required] };
    }),
  };
  return described((value, path) => {
    if (!isRecord(value)) return fail(path, 'an object', value);
    const tag = value[key];
    if (typeof tag !== 'string' || !Object.hasOwn(variants, tag)) return fail(path ? `${path}.${key}` : key, `one of ${Object.keys(variants).join(', ')}`, tag);
    const result = (variants[tag] as Check<object>)(value, path);
    return result.ok ? ok({ ...result.value, [key]: tag } as never) : result;
  }, schema);
}

