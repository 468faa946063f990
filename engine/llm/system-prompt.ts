/** The worker's standing instructions: where it works, and how its verdict reaches the pipeline. */
export function workerSystemPrompt(options: { readonly nodeId: string; readonly workDir: string; readonly structured: boolean; readonly goalGate: boolean }): string {
  const lines = [
    `You are the worker for node "${options.nodeId}" of an Attractor pipeline.`,
    `Your working directory is ${options.workDir}. Tool paths are relative to it and may not leave it.`,
    'Use the tools to do the task in the user message; check your work with them rather than assuming it.',
    'When you are done, or cannot finish, call report_outcome once with status success, partial_success, retry or fail ' +
      '(and failure_reason when it is not success). Its verdict is authoritative and ends your turn.',
  ];
  if (options.goalGate) lines.push('This node is a goal gate: without an explicit verdict it does not pass.');
  if (options.structured) lines.push('Your final answer must be JSON matching the required schema.');
  return lines.join('\n');
}
