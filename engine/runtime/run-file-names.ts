/**
 * The files of a run directory (canonical §5.6 plus the ledger's records): the one place their
 * names are spelled. The engine writes them (RunDirectory and its helpers); `host/run-directory/`
 * reads them for every face.
 */
export const RUN_FILES = {
  /** The state snapshot; a run exists from its first commit, which writes it. */
  checkpoint: 'checkpoint.json',
  /** The state's changes since the snapshot, one node boundary a line. */
  journal: 'journal.jsonl',
  /** Every node boundary of the main walk, for `resume --from` and time travel. */
  boundaries: 'boundaries.jsonl',
  manifest: 'manifest.json',
  trace: 'trace.jsonl',
  /** The pipeline source the run walks (resume checks its hash). */
  pipeline: 'pipeline.dot',
  /** A time-travel branch's parent and branch point. */
  branch: 'branch.json',
  /** The run's id on the `attractor serve` that walks it. */
  served: 'served.json',
  /** A finished run of `attractor serve`: its SSE stream's events, one a line (line N is event id N). */
  servedEvents: 'served-events.jsonl',
  /** A run on Restate: its events as one engine would have emitted them. */
  events: 'events.jsonl',
  lock: 'engine.lock',
  /** The private git object store of the per-visit workspace snapshots. */
  workspaceStore: 'workspace.git',
  /** Directory: the live process groups of the run's commands. */
  processGroups: 'running',
  /** Directory: the critics' feedback handed on at a loop restart. */
  feedback: 'feedback',
  /** Directory: the artifact store (canonical §5.5), `{id}.json` per artifact and `index.json`. */
  artifacts: 'artifacts',
} as const;

/**
 * The files `attractor serve` writes into a run directory from its own process, beside the engine and
 * outside its run lock: the engine leaves their temp files alone, as they may be a live write.
 */
export const SERVER_WRITTEN_FILES: ReadonlySet<string> = new Set([RUN_FILES.served, RUN_FILES.servedEvents]);

/** The records of one node visit, in its stage directory. */
export const VISIT_FILES = { prompt: 'prompt.md', response: 'response.md', status: 'status.json' } as const;

/** A tool node's records of its command, in its stage directory (stdout/stderr cut to the first and last part of each stream). */
export const TOOL_FILES = { command: 'command.sh', stdout: 'stdout.txt', stderr: 'stderr.txt' } as const;

/** An LLM worker session's events, `sessions/<id>/events.jsonl` in its node's stage directory. */
export const SESSION_FILES = { directory: 'sessions', events: 'events.jsonl' } as const;

/** A node's sub-pipeline run directory, inside the node's stage directory. */
export const SUBPIPELINE_DIRECTORY = 'subpipeline';
