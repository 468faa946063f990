import { Command } from 'commander';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_RUNS, DEFAULT_SERVE_PORT } from '../server/serve-defaults';
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

const program = new Command();
program.name('attractor').description('Run and check Attractor pipelines: Graphviz DOT graphs that are programs.').version('0.1.0');
program.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The options `run` and `resume` share: the backend and the run-level defaults. */
function withExecutionOptions(command: Command, scripted: string): Command {
  return command
    .option('--scripted <file>', scripted)
    .option('--default-model <model>', 'model for LLM nodes that name none (else $ATTRACTOR_DEFAULT_MODEL)')
    .option('--default-provider <provider>', 'provider of --default-model, when its name does not tell (openai or anthropic)')
    .option('--max-parallel <n>', 'branches a fan-out runs at once when it sets no max_parallel (default 4)');
}

async function exitWith(work: () => Promise<number> | number): Promise<void> {
  try {
    process.exitCode = await work();
  } catch (error) {
    process.stderr.write(`attractor: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}

withExecutionOptions(
  program
    .command('run')
    .description('run a pipeline (exit 0 success, 1 failed, 2 refused to start)')
    .argument('<file>', 'the .dot pipeline')
    .option('--param <key=value>', 'a launch parameter ($key in prompts and commands); repeatable', collect)
    .option('--cwd <dir>', 'working directory for tools and agents (default: the current directory)')
    .option('--logs-root <dir>', 'run directory (default: <cwd>/.attractor-runs/<name>-<time>)'),
  'scripted LLM answers and human answers (conformance case.json format)',
)
  .option('--json', 'print {"status","failure_reason","logs_root"} as the last stdout line')
  .option('--serve <port|socket>', 'also follow this run over the `attractor serve` API, on 127.0.0.1:PORT or a Unix socket (its URL goes to stderr)')
  .option('--on <restate://host:port>', "submit the run to `attractor worker`s through Restate's ingress; --cwd and --logs-root must be on a file system every worker shares")
  .option('--detach', 'with --on: print the run id and return once Restate accepted the run')
  .action((file: string, options) =>
    exitWith(async () => (options.on !== undefined ? (await import('./restate-run-command')).restateRunCommand(file, options) : (await import('./run-command')).runCommand(file, options, environment))),
  );

withExecutionOptions(program.command('resume').description('continue an interrupted run from its checkpoint, or --from a node visit in a new branch run').argument('<run-dir>', 'the run directory'), 'scripted answers, as for run')
  .option('--from <node>', 'NODE or NODE@N: a new branch run from before that visit (its state and working directory then); the run itself is left as it is')
  .option('--json', 'print the result as JSON')
  .action((runDir: string, options) => exitWith(async () => (await import('./run-command')).resumeCommand(runDir, options, environment)));

withExecutionOptions(
  program
    .command('serve')
    .description('run pipelines for HTTP clients (canonical §9.5); a bind other than loopback requires a bearer token')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--port <n>', 'port (0: any free one; the URL is printed)', DEFAULT_SERVE_PORT)
    .option('--root <dir>', 'a directory whose pipelines and cwds the server may run (repeatable; default: the current directory)', collect)
    .option('--logs-root <dir>', 'where run directories go, one per run (default: <first root>/.attractor-runs)')
    .option('--token-file <file>', 'require the bearer token in FILE, generated there (mode 0600) when missing; implied by a non-loopback bind (default file: ~/.config/attractor/serve-token)')
    .option('--max-body <bytes>', 'largest request body accepted', String(DEFAULT_MAX_BODY_BYTES))
    .option('--max-runs <n>', 'pipelines running at once; more submissions are refused (503)', DEFAULT_MAX_RUNS)
    .option('--on <restate://host:port>', "submit every run to `attractor worker`s through Restate's ingress instead of walking it here; --root and --logs-root must be on a file system every worker shares"),
  'scripted LLM answers for every run (human gates are answered over HTTP)',
).action((options) => exitWith(async () => (await import('./serve-command')).serveCommand(options, environment)));

withExecutionOptions(
  program
    .command('worker')
    .description('serve the engine as a Restate workflow: runs submitted with `run --on` take one durable step per node visit')
    .requiredOption('--restate <admin-url>', "Restate's admin URL, where the worker registers (e.g. http://127.0.0.1:9070)")
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--port <n>', 'port of the worker (0: any free one)', '9080')
    .option('--advertise <url>', 'the URL Restate reaches the workers at, e.g. a load balancer in front of several (default: http://HOST:PORT)'),
  'scripted LLM answers for every run (human gates are answered through Restate)',
).action((options) => exitWith(async () => (await import('./worker-command')).workerCommand(options, environment)));

program
  .command('answer')
  .description('answer the human gate a run on Restate waits at')
  .requiredOption('--on <restate://host:port>', "Restate's ingress")
  .argument('<run-id>', 'the run id `run --on` printed')
  .argument('<choice>', "an option's key, label or target node")
  .action((runId: string, choice: string, options: { on: string }) => exitWith(async () => (await import('./restate-run-command')).answerCommand(runId, choice, options)));

program
  .command('trace')
  .description('show the path a run took, iteration by iteration (the descent curve)')
  .argument('<run-dir>', 'the run directory')
  .option('--json', 'print the records and per-iteration summary as JSON')
  .option('--files', 'list the files each visit added (A), changed (M) and deleted (D)')
  .action((runDir: string, options: { json?: boolean; files?: boolean }) => exitWith(async () => (await import('./trace-command')).traceCommand(runDir, options)));

program
  .command('diff')
  .description("what one node visit did to the workspace: files added/changed/deleted and a unified diff")
  .argument('<run-dir>', 'the run directory')
  .argument('<node>', 'NODE or NODE@N (its N-th visit, 1-based; default: the last)')
  .option('--json', 'print {"node_id","visit","changes","diff",...} as one JSON line')
  .action((runDir: string, node: string, options: { json?: boolean }) => exitWith(async () => (await import('./diff-command')).diffCommand(runDir, node, options)));

program
  .command('doctor')
  .description('check the environment: node, provider keys (never printed), Graphviz WASM, run directory')
  .option('--probe', 'send a 1-token request offering one tool to each configured provider; 0 tokens fails')
  .option('--openai-model <model>', 'model for the OpenAI probe (default gpt-4o-mini)')
  .option('--anthropic-model <model>', 'model for the Anthropic probe (default claude-haiku-4-5)')
  .option('--gemini-model <model>', 'model for the Gemini probe (default gemini-2.5-flash)')
  .option('--cwd <dir>', 'where runs would be written (default: the current directory)')
  .option('--json', 'print {"checks": [...]} as one JSON line')
  .action((options) => exitWith(async () => (await import('./doctor-command')).doctorCommand(options, environment)));

program
  .command('lint')
  .description('validate and lint pipelines (exit 1 on errors, or on warnings with --strict)')
  .argument('<files...>', '.dot files')
  .option('--json', 'print {"diagnostics": [...]} as one JSON line')
  .option('--strict', 'fail on warnings too')
  .action((files: string[], options: { json?: boolean; strict?: boolean }) => exitWith(async () => (await import('./lint-command')).runCheckCommand(files, 'lint', options)));

program
  .command('validate')
  .description('run only the admission rules a run enforces (exit 1 on errors)')
  .argument('<files...>', '.dot files')
  .option('--json', 'print {"diagnostics": [...]} as one JSON line')
  .action((files: string[], options: { json?: boolean }) => exitWith(async () => (await import('./lint-command')).runCheckCommand(files, 'validate', options)));

void program.parseAsync();
