import { Command } from 'commander';
import { runCheckCommand } from './lint-command';

const program = new Command();
program.name('attractor').description('Run and check Attractor pipelines: Graphviz DOT graphs that are programs.').version('0.1.0');
program.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

program
  .command('lint')
  .description('validate and lint pipelines (exit 1 on errors, or on warnings with --strict)')
  .argument('<files...>', '.dot files')
  .option('--json', 'print {"diagnostics": [...]} as one JSON line')
  .option('--strict', 'fail on warnings too')
  .action((files: string[], options: { json?: boolean; strict?: boolean }) => {
    process.exitCode = runCheckCommand(files, 'lint', options);
  });

program
  .command('validate')
  .description('run only the admission rules a run enforces (exit 1 on errors)')
  .argument('<files...>', '.dot files')
  .option('--json', 'print {"diagnostics": [...]} as one JSON line')
  .action((files: string[], options: { json?: boolean }) => {
    process.exitCode = runCheckCommand(files, 'validate', options);
  });

program.parse();
