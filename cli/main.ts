import { DEFAULT_ATTACH_LEASE_SECONDS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_QUEUED, DEFAULT_MAX_RUNS, DEFAULT_SERVE_PORT } from '../host/serve/serve-defaults';
import { parseCommandLine, type CommandSpec, type OptionSpec, type OptionValues } from './command-line';
import { takeCredentials } from './credentials';

// Each command's module loads on first use (esbuild.mjs bundles each on its own), so `lint` never
// loads the runtime, the LLM clients, the server or the trace reader.

let environment: NodeJS.ProcessEnv;
try {
  // Before anything else: a CLI started with provider keys relaunches without them (credentials.ts).
  environment = { ...process.env, ...takeCredentials() };
} catch (error) {
  process.stderr.write(`attractor: ${(error as Error).message}\n`);
  process.exit(2);
}

// `attractor … | head`: once the reader has left, what is left to print goes nowhere; the command
// still finishes its work (a run its checkpoints) and exits with its own status.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

/** The option specs of each command below give its options this shape (a command module's own type). */
const as = <T>(options: OptionValues): T => options as unknown as T;

/** The options `run`, `resume`, `serve` and `worker` share: the backend and the run-level defaults. */
function executionOptions(scripted: string, sandbox = 'auto: the agent\'s shell in workspace, tool nodes and hooks in workspace-network, where bwrap runs'): OptionSpec[] {
  return [
    { name: 'scripted', value: '<file>', description: scripted },
    { name: 'default-model', value: '<model>', description: 'model for LLM nodes that name none (else $ATTRACTOR_DEFAULT_MODEL)' },
    { name: 'default-provider', value: '<provider>', description: 'provider of --default-model, when its name does not tell (openai or anthropic)' },
    { name: 'max-parallel', value: '<n>', description: 'branches a fan-out runs at once when it sets no max_parallel (default 4)' },
    { name: 'sandbox', value: '<mode>', description: `confine commands with bubblewrap: off, workspace (no network), workspace-network; the least confinement, a pipeline may ask for more (default ${sandbox})` },
  ];
}

const handlersOption: OptionSpec = { name: 'handlers', value: '<module>', description: 'a JavaScript module whose `handlers` export maps handler types (or shapes) to custom handlers; repeatable', repeatable: true };
const json = (description: string): OptionSpec => ({ name: 'json', description });
const pipelineFiles = { name: 'files', description: '.dot files', variadic: true } as const;
const runDirectory = { name: 'run-dir', description: 'the run directory' };

const commands: CommandSpec[] = [
  {
    name: 'run',
    description: 'run a pipeline (exit 0 success, 1 failed, 2 refused to start)',
    arguments: [{ name: 'file', description: 'the .dot pipeline' }],
    options: [
      { name: 'param', value: '<key=value>', description: 'a launch parameter ($key in prompts and commands); repeatable', repeatable: true },
      { name: 'cwd', value: '<dir>', description: 'working directory for tools and agents (default: the current directory)' },
      { name: 'logs-root', value: '<dir>', description: 'run directory (default: <cwd>/.attractor-runs/<name>-<time>)' },
      ...executionOptions('scripted LLM answers and human answers (conformance case.json format)'),
      handlersOption,
      json('print {"status","failure_reason","logs_root"} as the last stdout line'),
      { name: 'serve', value: '<port|socket>', description: 'also follow this run over the `attractor serve` API, on 127.0.0.1:PORT or a Unix socket (its URL goes to stderr)' },
      { name: 'attach-lease', value: '<seconds>', description: `with --serve: an attached debugger silent this long is gone; its breakpoints are dropped and the run goes on (default: ${DEFAULT_ATTACH_LEASE_SECONDS})` },
      { name: 'on', value: '<restate://host:port>', description: "submit the run to `attractor worker`s through Restate's ingress; --cwd and --logs-root must be on a file system every worker shares" },
      { name: 'detach', description: 'with --on: print the run id and return once Restate accepted the run' },
    ],
    action: async ([file], options) =>
      options.on !== undefined ? (await import('./restate-run-command')).restateRunCommand(file!, as(options)) : (await import('./run-command')).runCommand(file!, as(options), environment),
  },
  {
    name: 'resume',
    description: 'continue an interrupted run from its checkpoint, or --from a node visit in a new branch run',
    arguments: [runDirectory],
    options: [
      ...executionOptions('scripted answers, as for run'),
      handlersOption,
      { name: 'cwd', value: '<dir>', description: 'the working directory the run worked in (default: the current directory); a run never continues in another' },
      { name: 'from', value: '<node>', description: 'NODE or NODE@N: a new branch run from before that visit (its state and working directory then); the run itself is left as it is' },
      { name: 'discard-changes', description: 'with --from: go back even over files changed by someone other than the run (`attractor undo` brings them back)' },
      json('print the result as JSON'),
    ],
    action: async ([runDir], options) => (await import('./run-command')).resumeCommand(runDir!, as(options), environment),
  },
  {
    name: 'undo',
    description: 'put the working directory back as the time travel that started a branch run found it (refused while that branch runs)',
    arguments: [{ name: 'branch-dir', description: 'the branch run directory (`resume --from` printed it)' }],
    options: [{ name: 'discard-changes', description: 'undo even over files changed since by someone other than the branch run' }, json('print {"status","cwd",...} as one JSON line')],
    action: async ([branchDir], options) => (await import('./run-command')).undoCommand(branchDir!, as(options)),
  },
  {
    name: 'serve',
    description: 'run pipelines for HTTP clients (canonical §9.5); a bind other than loopback requires a bearer token',
    arguments: [],
    options: [
      { name: 'host', value: '<address>', description: 'address to bind', default: '127.0.0.1' },
      { name: 'port', value: '<n>', description: 'port (0: any free one; the URL is printed)', default: DEFAULT_SERVE_PORT },
      { name: 'root', value: '<dir>', description: 'a directory whose pipelines and cwds the server may run (repeatable; default: the current directory)', repeatable: true },
      { name: 'logs-root', value: '<dir>', description: 'where run directories go, one per run (default: <first root>/.attractor-runs)' },
      { name: 'state-dir', value: '<dir>', description: 'a directory only you may write, outside the roots and the logs root, where the queue of submissions waiting for a slot outlives the server (default: $XDG_STATE_HOME/attractor, else ~/.local/state/attractor)' },
      { name: 'token-file', value: '<file>', description: 'require the bearer token in FILE, generated there (mode 0600) when missing; implied by a non-loopback bind (default file: ~/.config/attractor/serve-token)' },
      { name: 'max-body', value: '<bytes>', description: 'largest request body accepted', default: String(DEFAULT_MAX_BODY_BYTES) },
      { name: 'max-runs', value: '<n>', description: 'pipelines running at once (a run waiting at a human gate does not count); more submissions wait in a queue', default: DEFAULT_MAX_RUNS },
      { name: 'max-queued', value: '<n>', description: 'submissions that may wait for a running slot; more are refused (503)', default: DEFAULT_MAX_QUEUED },
      { name: 'max-connections', value: '<n>', description: "clients connected at once; more are refused (503) (default: what the open-file limit leaves beside --max-runs runs' commands)" },
      { name: 'attach-lease', value: '<seconds>', description: 'an attached debugger silent this long is gone: its breakpoints are dropped and its run goes on', default: DEFAULT_ATTACH_LEASE_SECONDS },
      { name: 'on', value: '<restate://host:port>', description: "submit every run to `attractor worker`s through Restate's ingress instead of walking it here; --root and --logs-root must be on a file system every worker shares" },
      ...executionOptions('scripted LLM answers for every run (human gates are answered over HTTP)', 'workspace-network for every command, where bwrap runs'),
    ],
    action: async (_, options) => (await import('./serve-command')).serveCommand(as(options), environment),
  },
  {
    name: 'worker',
    description: 'serve the engine as a Restate workflow: runs submitted with `run --on` take one durable step per node visit',
    arguments: [],
    options: [
      { name: 'restate', value: '<admin-url>', description: "Restate's admin URL, where the worker registers (e.g. http://127.0.0.1:9070)", required: true },
      { name: 'host', value: '<address>', description: 'address to bind', default: '127.0.0.1' },
      { name: 'port', value: '<n>', description: 'port of the worker (0: any free one)', default: '9080' },
      { name: 'advertise', value: '<url>', description: 'the URL Restate reaches the workers at, e.g. a load balancer in front of several (default: http://HOST:PORT)' },
      { name: 'identity-key', value: '<publickeyv1_…>', description: "Restate's request identity public key: requests not signed with its private key are refused (repeatable, for a key rotation; scripts/restate-identity-key.mjs derives it from the PEM)", repeatable: true },
      ...executionOptions('scripted LLM answers for every run (human gates are answered through Restate)'),
    ],
    action: async (_, options) => (await import('./worker-command')).workerCommand(as(options), environment),
  },
  {
    name: 'answer',
    description: 'answer the human gate a run on Restate waits at',
    arguments: [
      { name: 'run-id', description: 'the run id `run --on` printed' },
      { name: 'choice', description: "an option's key, label or target node" },
    ],
    options: [{ name: 'on', value: '<restate://host:port>', description: "Restate's ingress", required: true }],
    action: async ([runId, choice], options) => (await import('./restate-run-command')).answerCommand(runId!, choice!, as(options)),
  },
  {
    name: 'trace',
    description: 'show the path a run took, iteration by iteration (the descent curve)',
    arguments: [runDirectory],
    options: [json('print the records and per-iteration summary as JSON'), { name: 'files', description: 'list the files each visit added (A), changed (M) and deleted (D)' }],
    action: async ([runDir], options) => (await import('./trace-command')).traceCommand(runDir!, options),
  },
  {
    name: 'diff',
    description: 'what one node visit did to the workspace: files added/changed/deleted and a unified diff',
    arguments: [runDirectory, { name: 'node', description: 'NODE or NODE@N (its N-th visit, 1-based; default: the last)' }],
    options: [json('print {"node_id","visit","changes","diff",...} as one JSON line')],
    action: async ([runDir, node], options) => (await import('./diff-command')).diffCommand(runDir!, node!, options),
  },
  {
    name: 'doctor',
    description: 'check the environment: node, provider keys (never printed), Graphviz WASM, run directory',
    arguments: [],
    options: [
      { name: 'probe', description: 'send a 1-token request offering one tool to each configured provider; 0 tokens fails' },
      { name: 'openai-model', value: '<model>', description: 'model for the OpenAI probe (default gpt-4o-mini)' },
      { name: 'anthropic-model', value: '<model>', description: 'model for the Anthropic probe (default claude-haiku-4-5)' },
      { name: 'gemini-model', value: '<model>', description: 'model for the Gemini probe (default gemini-2.5-flash)' },
      { name: 'cwd', value: '<dir>', description: 'where runs would be written (default: the current directory)' },
      json('print {"checks": [...]} as one JSON line'),
    ],
    action: async (_, options) => (await import('./doctor-command')).doctorCommand(as(options), environment),
  },
  {
    name: 'lint',
    description: 'validate and lint pipelines (exit 1 on errors, or on warnings with --strict)',
    arguments: [pipelineFiles],
    options: [json('print {"diagnostics": [...]} as one JSON line'), { name: 'strict', description: 'fail on warnings too' }],
    action: async (files, options) => (await import('./lint-command')).runCheckCommand(files, 'lint', options),
  },
  {
    name: 'validate',
    description: 'run only the admission rules a run enforces (exit 1 on errors)',
    arguments: [pipelineFiles],
    options: [json('print {"diagnostics": [...]} as one JSON line')],
    action: async (files, options) => (await import('./lint-command')).runCheckCommand(files, 'validate', options),
  },
];

const invocation = parseCommandLine({ name: 'attractor', description: 'Run and check Attractor pipelines: Graphviz DOT graphs that are programs.', version: '0.1.0', commands }, process.argv.slice(2));
if (invocation.kind === 'print') {
  process[invocation.stream].write(invocation.text);
  process.exitCode = invocation.exitCode;
} else {
  void (async () => {
    try {
      process.exitCode = await invocation.run();
    } catch (error) {
      process.stderr.write(`attractor: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 2;
    }
  })();
}
