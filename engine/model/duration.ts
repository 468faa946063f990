export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

const unitMillis: Record<DurationUnit, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export type DurationParse = { ok: true; millis: number } | { ok: false; message: string };

/**
 * Parses `250ms`, `30s`, `5m`, `1h`, `2d`, or a bare number in the attribute's documented unit.
 * Anything else is an error: a value is never silently truncated or reinterpreted.
 */
export function parseDuration(text: string, bareUnit: DurationUnit): DurationParse {
  const trimmed = text.trim();
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(trimmed);
  if (!match) {
    return { ok: false, message: `"${text}" is not a duration: use a number with a unit (250ms, 30s, 5m, 1h, 1d) or a bare number of ${bareUnit}` };
  }
  const unit = (match[2] as DurationUnit | undefined) ?? bareUnit;
  const millis = Number(match[1]) * unitMillis[unit];
  if (!Number.isFinite(millis)) return { ok: false, message: `"${text}" is too large a duration` };
  return { ok: true, millis: Math.round(millis) };
}

export function formatDuration(millis: number): string {
  if (millis < 1000) return `${Math.round(millis)}ms`;
  if (millis < 60_000) return `${(millis / 1000).toFixed(1)}s`;
  const minutes = Math.floor(millis / 60_000);
  const seconds = Math.round((millis % 60_000) / 1000);
  return `${minutes}m${seconds.toString().padStart(2, '0')}s`;
}
