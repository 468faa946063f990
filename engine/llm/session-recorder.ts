import fs from 'node:fs';
import path from 'node:path';
import type { AgentEvent } from '../runtime/backend';
import { SESSION_FILES } from '../runtime/run-file-names';

/** Streaming deltas go to live listeners only; the forensic record keeps what answers "what did the worker do?". */
const unpersistedEvents: ReadonlySet<AgentEvent['event']> = new Set(['text:delta']);

/**
 * Appends a worker session's events to `<stageDir>/sessions/<sessionId>/events.jsonl`
 * ({"event","timestamp","data"} per line) and forwards each to the live listener.
 */
export class SessionRecorder {
  readonly file: string;

  constructor(
    stageDir: string,
    readonly sessionId: string,
    private readonly forward: (event: AgentEvent) => void,
    private readonly now: () => number,
  ) {
    const dir = path.join(stageDir, SESSION_FILES.directory, sessionId);
    fs.mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, SESSION_FILES.events);
  }

  record(event: AgentEvent['event'], data: Readonly<Record<string, unknown>>): AgentEvent {
    const agentEvent: AgentEvent = { event, data: { session_id: this.sessionId, ...data } };
    if (!unpersistedEvents.has(event)) {
      fs.appendFileSync(this.file, `${JSON.stringify({ event, timestamp: new Date(this.now()).toISOString(), data: agentEvent.data })}\n`);
    }
    try {
      this.forward(agentEvent);
    } catch {
      // A listener's failure must not take the session down; the file keeps the record.
    }
    return agentEvent;
  }
}
