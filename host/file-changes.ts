import type { FileChange } from '../engine/runtime/workspace-snapshot';

/**
 * A file name as git prints one (C-style quoting): as it is when it holds nothing a terminal would
 * act on, else in double quotes with \a \b \t \n \v \f \r \" \\ and octal escapes of the other
 * control bytes. Non-ASCII text stays readable (git's core.quotePath=false), except the C1 control
 * characters, which some terminals obey too. For text output only: --json prints names exactly.
 */
export function quotePath(name: string): string {
  if (!NEEDS_QUOTING.test(name)) return name;
  let quoted = '"';
  for (const char of name) quoted += escapeChar(char);
  return `${quoted}"`;
}

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const NEEDS_QUOTING = /["\\\u0000-\u001f\u007f-\u009f]/;

const NAMED: Readonly<Record<string, string>> = { '\u0007': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };

function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x20 && (code < 0x7f || code > 0x9f)) return char;
  return [...Buffer.from(char, 'utf8')].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
}

const MARK: Record<FileChange['kind'], string> = { added: 'A', changed: 'M', deleted: 'D' };

/** A change as a line of text output: A, M or D, then the quoted name. */
export function formatChange(change: FileChange): string {
  return `${MARK[change.kind]} ${quotePath(change.path)}`;
}

/** The files time travel would discard, listed (the first `limit` of them) under a line that says why it stopped. */
export function describeChangesElsewhere(cwd: string, changes: readonly FileChange[], limit = 50): string {
  const shown = changes.slice(0, limit).map((change) => `  ${formatChange(change)}`);
  const more = changes.length > limit ? [`  … and ${changes.length - limit} more`] : [];
  return [`${quotePath(cwd)} holds ${changes.length} change(s) the run did not make since its last snapshot; going back would discard them:`, ...shown, ...more].join('\n');
}
