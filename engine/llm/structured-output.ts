/**
 * OpenAI's strict mode accepts only closed objects whose every property is required; a schema
 * that is not written that way is sent non-strict rather than rewritten behind the author's back.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (typeof schema !== 'object' || schema === null) return true;
  const record = schema as Record<string, unknown>;
  const properties = record.properties;
  if (record.type === 'object' || properties !== undefined) {
    if (record.additionalProperties !== false) return false;
    const keys = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
    const required = Array.isArray(record.required) ? record.required : [];
    if (!keys.every((key) => required.includes(key))) return false;
  }
  return Object.entries(record).every(([key, value]) => key === 'required' || key === 'enum' || key === 'const' || isStrictCompatible(value));
}

/** The tool Anthropic is asked to call with the final answer (tool-extraction structured output). */
export const structuredOutputToolName = '__structured_output__';

export function parseJsonObjectText(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = text.trim();
  const unfenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(trimmed)?.[1] ?? trimmed;
  try {
    return { ok: true, value: JSON.parse(unfenced) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
