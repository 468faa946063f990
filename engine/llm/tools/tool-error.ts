/** A tool failure the model should see (bad arguments, missing file, refused path): not a crash. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
