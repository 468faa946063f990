// The defaults of `attractor serve`, apart from the server itself: the CLI's command line shows them
// in --help without loading the server (engine/cli/main.ts loads each command on first use).

export const DEFAULT_SERVE_PORT = '8474';
export const DEFAULT_MAX_RUNS = '8';

/** The largest request body a server takes unless told otherwise (an answer, or a pipeline's DOT). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
