import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realPathOf } from '../engine/io/real-path';
import { writeFileAtomic } from '../engine/runtime/atomic-write';
import type { Check } from '../host/protocol/guards';
import { count, dictionary, list, matching, object, oneOf, tagged, text, type Infer } from '../host/protocol/guards';
import { claimQueue } from './queue-owner';

/** Submissions that ended before they started (cancelled in the queue, refused at their turn) listed after a restart; older ones are forgotten. */
const ENDED_KEPT = 100;

/** A record's file: its run id, then `.answer` for a held answer (the queue's owner.json and the temp files of writes are none). */
const RECORD_NAME = /^[0-9a-f-]{36}(\.answer)?\.json$/;
const HELD_SUFFIX = '.answer';

const runId = matching(/^[0-9a-f-]{36}$/, 'a run id');

const queuedRecord = object({
  id: runId,
  /** Its place in line: records are restored in this order. */
  seq: count,
  createdAt: text(100),
  /** The source as validated when it was submitted: a pipeline file changed since is not what was queued. */
  source: text(1024 ** 3),
  cwd: text(10_000),
  params: dictionary(text(1024 ** 3)),
}, {
  sourcePath: text(10_000),
  ended: object({ status: oneOf(['cancelled', 'fail'] as const), reason: text(10_000), endedAt: text(100) }),
});

/** A submission that waited (or waits) for a worker slot, as kept in the user's state directory. */
type QueuedRecord = Infer<typeof queuedRecord>;

const attachments = list(text(10_000), 1000);

/** The last question of a run at its gate, answered while every slot was taken: the run goes on with it when its turn comes. */
const heldAnswerRecord = object({
  id: runId,
  /** Its place in line, among the held answers (they go before the submissions: their runs were under way). */
  seq: count,
  questionId: text(10_000),
  answer: tagged(
    {
      option: object({ choice: text(10_000) }, { attachments }),
      freeform: object({ text: text(1024 ** 2) }, { attachments }),
      skipped: object({}),
    },
    'kind',
  ),
});

/** A gate's answer kept for its run until the run has a slot again. */
export type HeldAnswer = Omit<Infer<typeof heldAnswerRecord>, 'seq'>;
/** What a submission brings to the queue; its place is given by the store. */
export type QueuedSubmission = Omit<QueuedRecord, 'seq' | 'ended'>;

/** The user's own state directory for attractor: `$XDG_STATE_HOME/attractor`, else `~/.local/state/attractor`. */
export function defaultStateDir(): string {
  return path.join(process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state'), 'attractor');
}

/**
 * The queue of `attractor serve`, kept where only this user writes: one record (mode 0600) per
 * submission waiting for a worker slot, and per answer held for a run at its gate until it has one, in `<state dir>/serve-queue/<hash of the logs root>/`,
 * outside the logs root and every root. A restarted server starts only what it finds there; a record
 * under the logs root (committed, or written by whoever shares it) is never read. A record is written
 * (fsynced) before its submission is answered, deleted when its turn comes (at most once: a server
 * killed in between loses that one rather than running it twice), and kept as ended when it is cancelled.
 */
export class QueuedSubmissions {
  private readonly records = new Map<string, QueuedRecord>();
  private nextSeq = 0;
  private nextHeldSeq = 0;

  private constructor(
    private readonly dir: string,
    /** Lets another server keep this queue. */
    readonly close: () => void,
  ) {}

  /**
   * The queue of the server writing under `logsRoot`, claimed for this process (queue-owner.ts; its
   * directory made, mode 0700, when missing). Refused when `stateDir` lies inside `shared` (the roots
   * and the logs root: others may write there) or when anyone but this user may write to it: its
   * records could then not be told from forged ones.
   */
  static open(stateDir: string, logsRoot: string, shared: readonly string[]): QueuedSubmissions {
    const real = realPathOf(stateDir);
    const inside = shared.find((other) => isWithin(realPathOf(other), real));
    if (inside !== undefined) throw new Error(`the state directory ${stateDir} lies inside ${inside}, which others may write to: give --state-dir a directory of your own outside the roots and the logs root`);
    // Keyed by the logs root's real path: one named through a link is the same logs root, with the same queue and claim.
    const key = crypto.createHash('sha256').update(realPathOf(logsRoot)).digest('hex').slice(0, 32);
    const dir = path.join(stateDir, 'serve-queue', key);
    for (const owned of [stateDir, dir].filter((existing) => fs.existsSync(existing))) {
      const refusal = othersMayWrite(fs.statSync(owned));
      if (refusal) throw new Error(`the state directory ${owned} ${refusal}: its queued submissions could be forged (chmod go-w, or give --state-dir another)`);
    }
    return new QueuedSubmissions(dir, claimQueue(dir));
  }

  /**
   * The records of an earlier server, in their order: those waiting and those that ended before
   * they started. A file this user did not write alone (another owner, writable by others, a link)
   * or that is no record is never started nor listed: `warn` says which and why.
   */
  restore(warn: (message: string) => void): QueuedRecord[] {
    for (const file of this.files(false)) {
      const record = readRecord(file, queuedRecord, '');
      if (typeof record === 'string') {
        warn(`queued submission ${file} ignored: ${record}`);
        continue;
      }
      this.records.set(record.id, record);
      this.nextSeq = Math.max(this.nextSeq, record.seq + 1);
    }
    return [...this.records.values()].sort((a, b) => a.seq - b.seq);
  }

  /** The answers an earlier server held for runs at their gates, in the order they were given; a forged one is ignored as `restore` ignores records. */
  heldAnswers(warn: (message: string) => void): HeldAnswer[] {
    const held = this.files(true).flatMap((file) => {
      const record = readRecord(file, heldAnswerRecord, HELD_SUFFIX);
      if (typeof record !== 'string') return [record];
      warn(`held answer ${file} ignored: ${record}`);
      return [];
    });
    this.nextHeldSeq = Math.max(this.nextHeldSeq, ...held.map((record) => record.seq + 1));
    return held.sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...answer }) => answer);
  }

  /** A run's gate was answered while no slot was free: on disk before the client hears it was taken. */
  holdAnswer(held: HeldAnswer): void {
    writeFileAtomic(this.fileOf(held.id, HELD_SUFFIX), `${JSON.stringify({ ...held, seq: this.nextHeldSeq++ })}\n`, true, 0o600);
  }

  /** The run's gate got the answer, or no longer waits for it (the run ended, was cancelled, moved on). */
  releaseAnswer(id: string): void {
    fs.rmSync(this.fileOf(id, HELD_SUFFIX), { force: true });
  }

  /** A submission waits: on disk before the client hears it is queued. */
  add(submission: QueuedSubmission): void {
    this.write({ ...submission, seq: this.nextSeq++ });
  }

  /** Its turn came: the run directory speaks for it from now on. */
  remove(id: string): void {
    this.records.delete(id);
    fs.rmSync(this.fileOf(id), { force: true });
  }

  /** It ended without starting (cancelled, refused at its turn): listed so after a restart, never started. */
  end(id: string, ended: NonNullable<QueuedRecord['ended']>): void {
    const record = this.records.get(id);
    if (!record) return;
    this.write({ ...record, ended });
    const over = [...this.records.values()].filter((entry) => entry.ended).sort((a, b) => a.seq - b.seq).slice(0, -ENDED_KEPT);
    for (const old of over) this.remove(old.id);
  }

  private write(record: QueuedRecord): void {
    writeFileAtomic(this.fileOf(record.id), `${JSON.stringify(record)}\n`, true, 0o600);
    this.records.set(record.id, record);
  }

  private fileOf(id: string, suffix = ''): string {
    return path.join(this.dir, `${id}${suffix}.json`);
  }

  /** The record files: of held answers, or of submissions. */
  private files(heldAnswers: boolean): string[] {
    return fs
      .readdirSync(this.dir)
      .filter((entry) => RECORD_NAME.test(entry) && entry.endsWith(`${HELD_SUFFIX}.json`) === heldAnswers)
      .map((entry) => path.join(this.dir, entry));
  }
}

/** The record in `file` (named by its id and `suffix`), or why it is none this user wrote. */
function readRecord<T extends { readonly id: string }>(file: string, check: Check<T>, suffix: string): T | string {
  let text: string;
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) return 'not a regular file';
    const refusal = othersMayWrite(stat);
    if (refusal) return refusal;
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return (error as Error).message;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const checked = check(parsed, '');
  if (!checked.ok) return checked.error;
  return `${checked.value.id}${suffix}.json` === path.basename(file) ? checked.value : 'its name is not its id';
}

/** Why others than this user may have written a file or directory, or undefined when none may. */
function othersMayWrite(stat: fs.Stats): string | undefined {
  if (stat.uid !== process.getuid?.()) return `belongs to user ${stat.uid}, not to this one`;
  if ((stat.mode & 0o022) !== 0) return `is writable by others (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

function isWithin(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
