/** Canonical §4.6 accelerator keys of a human gate's options, and how an option reads wherever it is listed. */

const WRITTEN_KEY = [/^\[([A-Za-z0-9])\]/, /^([A-Za-z0-9])\)/, /^([A-Za-z0-9])\s+-\s+/];

/** The key a label writes as `[K] Label`, `K) Label` or `K - Label`. */
function writtenKey(label: string): string | undefined {
  const trimmed = label.trim();
  for (const pattern of WRITTEN_KEY) {
    const match = pattern.exec(trimmed);
    if (match) return match[1];
  }
  return undefined;
}

/** The option's key: the one its label writes, else its first character. */
export function acceleratorKey(label: string): string {
  return (writtenKey(label) ?? label.trim().charAt(0)).toUpperCase();
}

/** `[K] Label`, or the label alone when it already shows its key: buttons, pickers, prompts and errors read alike. */
export function optionCaption(option: { readonly key: string; readonly label: string }): string {
  return writtenKey(option.label) === undefined ? `[${option.key}] ${option.label}` : option.label;
}
