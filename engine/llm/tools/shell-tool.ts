import type { AgentTool } from './agent-tool';
import { numberArg, stringArg } from './agent-tool';
import { runShellCommand } from '../../runtime/process';
import { ToolError } from './tool-error';

export const shellTool: AgentTool = {
  definition: {
    name: 'shell',
    description: 'Run a shell command (bash -c) in the working directory. Optional `timeout_ms`. Non-zero exit is reported as an error with its output.',
    parameters: { type: 'object', properties: { command: { type: 'string' }, timeout_ms: { type: 'integer', minimum: 1 } }, required: ['command'] },
  },
  async execute(args, context) {
    const command = stringArg(args, 'command');
    if (!command) throw new ToolError('shell: `command` (string) is required');
    const timeoutMs = Math.min(numberArg(args, 'timeout_ms') ?? context.shellTimeoutMs, context.shellTimeoutMs);
    const result = await runShellCommand(command, {
      cwd: context.workspace.root,
      env: context.env,
      timeoutMs,
      outputCapBytes: context.outputCapBytes,
      ...(context.confinement ? { confinement: context.confinement } : {}),
      signal: context.signal,
    });
    const sections = [result.stdout && `stdout:\n${result.stdout}`, result.stderr && `stderr:\n${result.stderr}`, result.truncated && `[output truncated to its first and last ${context.outputCapBytes / 2} bytes per stream]`].filter(Boolean);
    const output = sections.join('\n') || '(no output)';
    if (result.cancelled) throw new ToolError(`shell: cancelled\n${output}`);
    if (result.timedOut) throw new ToolError(`shell: timed out after ${timeoutMs} ms; the process group was killed\n${output}`);
    if (result.exitCode !== 0) throw new ToolError(`shell: exit ${result.exitCode ?? `signal ${result.signal}`}\n${output}`);
    return output;
  },
};
