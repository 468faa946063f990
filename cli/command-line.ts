import { parseArgs } from 'node:util';

/**
 * The CLI's command line: subcommands declared as data, parsed by Node's own `util.parseArgs`, with
 * commander-style help. Replaces commander, whose loading (it requires child_process, hence net,
 * stream and dgram) was a third of `attractor lint`'s start-up beyond Node itself.
 */

export interface OptionSpec {
  /** The long name, without dashes: `logs-root` reaches the action as `logsRoot`. */
  readonly name: string;
  /** The value's placeholder (`<dir>`); a flag without one is a boolean switch. */
  readonly value?: string;
  readonly description: string;
  readonly default?: string;
  readonly repeatable?: true;
  readonly required?: true;
}

interface ArgumentSpec {
  readonly name: string;
  readonly description: string;
  /** Takes every remaining positional (at least one). */
  readonly variadic?: true;
}

export type OptionValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

export interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly arguments: readonly ArgumentSpec[];
  readonly options: readonly OptionSpec[];
  /** The positionals in declaration order (a variadic argument's values last), then the options. */
  readonly action: (args: readonly string[], options: OptionValues) => Promise<number> | number;
}

export interface Program {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly commands: readonly CommandSpec[];
}

/** What the command line asks for: an action to run, or text to print with an exit code. */
export type Invocation = { readonly kind: 'run'; readonly run: () => Promise<number> | number } | { readonly kind: 'print'; readonly stream: 'stdout' | 'stderr'; readonly text: string; readonly exitCode: number };

const HELP: OptionSpec = { name: 'help', description: 'display help for command' };

export function parseCommandLine(program: Program, argv: readonly string[]): Invocation {
  const [first, ...rest] = argv;
  if (first === undefined) return usageError(programHelp(program));
  if (first === '-h' || first === '--help' || first === 'help') {
    const command = rest[0] === undefined ? undefined : program.commands.find((c) => c.name === rest[0]);
    return print(command ? commandHelp(program, command) : programHelp(program));
  }
  if (first === '-V' || first === '--version') return print(`${program.version}\n`);
  const command = program.commands.find((c) => c.name === first);
  if (!command) return usageError(`${program.name}: unknown command '${first}' (see ${program.name} --help)\n`);
  return parseCommand(program, command, rest);
}

function parseCommand(program: Program, command: CommandSpec, argv: readonly string[]): Invocation {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: parseArgsOptions(command.options) });
  } catch (error) {
    return usageError(`${program.name} ${command.name}: ${(error as Error).message}\n`);
  }
  if (parsed.values.help === true) return print(commandHelp(program, command));
  const missing = command.options.find((o) => o.required && parsed.values[o.name] === undefined);
  if (missing) return usageError(`${program.name} ${command.name}: required option '--${missing.name} ${missing.value ?? ''}' not specified\n`);
  const fixed = command.arguments.filter((a) => !a.variadic);
  const variadic = command.arguments.find((a) => a.variadic);
  const positionals = parsed.positionals;
  if (positionals.length < fixed.length + (variadic ? 1 : 0)) {
    const absent = positionals.length < fixed.length ? fixed[positionals.length]! : variadic!;
    return usageError(`${program.name} ${command.name}: missing required argument '${absent.name}'\n`);
  }
  if (!variadic && positionals.length > fixed.length) return usageError(`${program.name} ${command.name}: too many arguments: expected ${fixed.length}, got ${positionals.length}\n`);
  const options = optionValues(command.options, parsed.values);
  return { kind: 'run', run: () => command.action(positionals, options) };
}

function parseArgsOptions(options: readonly OptionSpec[]): NonNullable<Parameters<typeof parseArgs>[0]>['options'] {
  const specs: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const option of options) specs[option.name] = { type: option.value === undefined ? 'boolean' : 'string', ...(option.repeatable ? { multiple: true } : {}) };
  return specs;
}

function optionValues(options: readonly OptionSpec[], values: Record<string, unknown>): OptionValues {
  const result: Record<string, string | boolean | readonly string[] | undefined> = {};
  for (const option of options) result[camelCase(option.name)] = (values[option.name] as string | boolean | string[] | undefined) ?? option.default;
  return result;
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function print(text: string): Invocation {
  return { kind: 'print', stream: 'stdout', text, exitCode: 0 };
}

function usageError(text: string): Invocation {
  return { kind: 'print', stream: 'stderr', text, exitCode: 2 };
}

function programHelp(program: Program): string {
  const commands = program.commands.map((c) => [`${c.name} ${usageTail(c)}`, c.description] as const);
  return [
    `Usage: ${program.name} [options] [command]\n\n${program.description}\n`,
    section('Options', [
      ['-V, --version', 'output the version number'],
      ['-h, --help', 'display help for command'],
    ]),
    section('Commands', [...commands, ['help [command]', 'display help for command']]),
  ].join('\n');
}

function commandHelp(program: Program, command: CommandSpec): string {
  const args = command.arguments.map((a) => [a.name, a.description] as const);
  const options = [...command.options, HELP].map((o) => [o === HELP ? '-h, --help' : `--${o.name}${o.value ? ` ${o.value}` : ''}`, `${o.description}${o.default !== undefined ? ` (default: "${o.default}")` : ''}`] as const);
  return [`Usage: ${program.name} ${command.name} ${usageTail(command)}\n\n${command.description}\n`, ...(args.length > 0 ? [section('Arguments', args)] : []), section('Options', options)].join('\n');
}

function usageTail(command: CommandSpec): string {
  return ['[options]', ...command.arguments.map((a) => `<${a.name}${a.variadic ? '...' : ''}>`)].join(' ');
}

function section(title: string, rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([term]) => term.length)) + 2;
  return `${title}:\n${rows.map(([term, text]) => `  ${term.padEnd(width)}${text}`).join('\n')}\n`;
}
