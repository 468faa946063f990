// Heap caps of the language server. Node's default old-space limit (a quarter of the machine's memory,
// or more) lets a server that has seen a few large pipelines grow to hundreds of MB before V8 bothers
// to collect; with a cap it collects sooner and stays bounded. Checking a 10,000-node pipeline (the
// largest the benchmarks use) needs about 100 MB of heap; the caps leave room above that.

/** The server process's main thread (documents, their outlines, models read for hover, symbols and formatting). */
const SERVER_HEAP_MB = 160;

/**
 * Young generation per thread: Node's default lets each grow to tens of MB while a large text is
 * scanned or checked, all of it resident; a small one is collected more often and stays small.
 */
const YOUNG_SPACE_MB = 4;

/** The checker worker's young generation (its three semi-spaces). */
export const CHECKER_YOUNG_MB = 3 * YOUNG_SPACE_MB;

/** The checker worker's heap (parse, transform and lint of one text at a time). */
export const CHECKER_HEAP_MB = 160;

/**
 * The old generation's size before its first full collection, and the least it is allowed after one.
 * Left to V8, the main thread's small heap (~10 MB with a 5,000-node document open: its outline
 * rows are off the heap) gets a limit a few MB above what survived, and each edit's new text (584 KB
 * at 5,000 nodes) and line starts reach it every third edit: a full mark-compact every third
 * keystroke. With this floor it comes every twenty edits or so, for ~12 MB more resident memory.
 */
const INITIAL_OLD_SPACE_MB = 48;

/** Node options the extension starts the server with (extension/language-client.ts). */
export const languageServerExecArgv: readonly string[] = [`--max-old-space-size=${SERVER_HEAP_MB}`, `--max-semi-space-size=${YOUNG_SPACE_MB}`, `--initial-old-space-size=${INITIAL_OLD_SPACE_MB}`];

/**
 * Variables the extension takes out of the server's environment (an overlay on the extension
 * host's: `undefined` removes). Node 20 reads and parses the certificates NODE_EXTRA_CA_CERTS names
 * as it starts, about 40 ms of every start with a system bundle, even in a process that never opens
 * a TLS connection, as the server does not.
 */
export const languageServerEnvOverrides: Readonly<Record<string, undefined>> = { NODE_EXTRA_CA_CERTS: undefined };
