/** A JSON object (or any non-array object): what parsed records, schemas and messages must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
