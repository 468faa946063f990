// The defaults of `attractor serve`, apart from the server itself: the CLI's command line shows them
// in --help without loading the server (cli/main.ts loads each command on first use).

export const DEFAULT_SERVE_PORT = '8474';
export const DEFAULT_MAX_RUNS = '8';
/** Submissions waiting for one of those slots; the next is refused (503). */
export const DEFAULT_MAX_QUEUED = '100';

/** The largest request body a server takes unless told otherwise (an answer, or a pipeline's DOT). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Seconds an attached debugger may send nothing (it renews every third of it) before the server lets its run go. */
export const DEFAULT_ATTACH_LEASE_SECONDS = '30';

/** The lease a user may set: long enough for one renewal round trip, at most a day. */
export const ATTACH_LEASE_SECONDS = { min: 0.1, max: 86_400 } as const;
