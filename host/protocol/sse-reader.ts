/** One message of a `text/event-stream` (the fields this API sends). */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * Splits an event stream into messages as its text arrives in arbitrary chunks (WHATWG HTML
 * "Server-sent events": lines end in LF, CR or CRLF; a blank line ends a message; `:` starts a comment).
 */
export class SseReader {
  private buffer = '';
  private id: string | undefined;
  private event = '';
  private data: string[] = [];

  constructor(private readonly onMessage: (message: SseMessage) => void) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let end: RegExpExecArray | null;
    // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
    while ((end = /\r\n|\r(?!$)|\n/.exec(this.buffer))) {
      const line = this.buffer.slice(0, end.index);
      this.buffer = this.buffer.slice(end.index + end[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') this.id = value;
    else if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
  }

  private dispatch(): void {
    if (this.data.length > 0) this.onMessage({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
    this.event = '';
    this.data = [];
  }
}
