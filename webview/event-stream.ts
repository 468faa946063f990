// Server-Sent Events read with fetch (the events are named by their type, which EventSource would
// make the page list in advance): each message in order, a dropped stream reopened after the last id.
import { SseReader, type SseMessage } from '../host/protocol/sse-reader';
import { ApiError, refusalOf } from './server-api';

const RECONNECT_MS = 1000;

/**
 * Follows `path` until the server ends the stream and `over()` says there is nothing more (a run
 * that ended), or `signal` stops it; a refusal (4xx) rejects. A reopened stream resumes after the last id.
 */
export async function followEvents(path: string, onMessage: (message: SseMessage) => void, over: () => Promise<boolean>, signal?: AbortSignal): Promise<void> {
  let lastEventId = 0;
  while (!signal?.aborted) {
    // A new reader per connection: a message cut off by the drop is sent again after lastEventId.
    const reader = new SseReader((message) => {
      if (message.id !== undefined && /^\d+$/.test(message.id)) lastEventId = Number(message.id);
      onMessage(message);
    });
    try {
      const resume = lastEventId > 0 ? `${path.includes('?') ? '&' : '?'}lastEventId=${lastEventId}` : '';
      const response = await fetch(`${path}${resume}`, { credentials: 'same-origin', headers: { accept: 'text/event-stream' }, ...(signal ? { signal } : {}) });
      if (!response.ok || !response.body) throw await refusalOf(response);
      const stream = response.body.getReader();
      const decoder = new TextDecoder();
      for (let chunk = await stream.read(); !chunk.done; chunk = await stream.read()) reader.push(decoder.decode(chunk.value, { stream: true }));
      if (await over()) return;
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ApiError && error.status < 500) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}
