import { appendFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { NetworkDetails, type NetworkDetail } from './network-detail';
import { RingBuffer } from './ring-buffer';

export interface ConsoleEntry { ts: number; level: string; text: string }
export interface NetworkEntry { ts: number; method: string; url: string; status: number | string; ms: number; bytes?: number }
export interface DialogEntry { ts: number; type: string; message: string; action: string }

export type LogKind = 'console' | 'network' | 'dialog';
type EntryOf<K extends LogKind> = { console: ConsoleEntry; network: NetworkEntry; dialog: DialogEntry }[K];
/** An entry with its id: per log, starting at 1, never reused (it survives ring wraparound and --clear). */
export interface Logged<T> { id: number; entry: T }

export const formatConsole = (e: ConsoleEntry, id: number) => `#${id} [${iso(e.ts)}] [${e.level}] ${e.text}`;
export const formatNetwork = (e: NetworkEntry, id: number) =>
  `#${id} [${iso(e.ts)}] ${e.method} ${e.url} → ${e.status} (${e.ms}ms${e.bytes === undefined ? '' : `, ${e.bytes}B`})`;
export const formatDialog = (e: DialogEntry, id: number) => `#${id} [${iso(e.ts)}] [${e.type}] ${JSON.stringify(e.message)} → ${e.action}`;

const iso = (ts: number) => new Date(ts).toISOString();
// Ids are the ring's sequence numbers plus one, so `--since 0` means "everything".
const idOf = (seq: number) => seq + 1;
const seqOf = (id: number) => id - 1;
/** Callers whose cursors are remembered; the least recently used is forgotten past this. */
const MAX_CURSORS = 256;

interface Channel<T> {
  buffer: RingBuffer<T>;
  format: (e: T, id: number) => string;
  file: string;
  flushedSeq: number;
}

// Console, network and dialog events in memory (commands read these), mirrored to disk once a second.
export class LogStore {
  readonly console: RingBuffer<ConsoleEntry>;
  readonly network: RingBuffer<NetworkEntry>;
  readonly dialog: RingBuffer<DialogEntry>;
  /** Headers, timing and a body handle for the newest requests only (see network-detail.ts). */
  readonly networkDetails = new NetworkDetails();
  private readonly channels: Channel<any>[];
  /** "kind\0caller" → id of the newest entry that caller has read. */
  private readonly cursors = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private writes: Promise<void> = Promise.resolve();

  constructor(capacity: number, fileFor: (kind: LogKind) => string) {
    this.console = new RingBuffer(capacity);
    this.network = new RingBuffer(capacity);
    this.dialog = new RingBuffer(capacity);
    this.channels = [
      { buffer: this.console, format: formatConsole, file: fileFor('console'), flushedSeq: 0 },
      { buffer: this.network, format: formatNetwork, file: fileFor('network'), flushedSeq: 0 },
      { buffer: this.dialog, format: formatDialog, file: fileFor('dialog'), flushedSeq: 0 },
    ];
  }

  /** Records a finished or failed request (and its details, when given); returns its id. */
  recordNetwork(entry: NetworkEntry, detail?: NetworkDetail): number {
    const id = idOf(this.network.push(entry));
    if (detail) this.networkDetails.set(id, detail);
    return id;
  }

  /** Entries with id > afterId still held, oldest first. */
  entries<K extends LogKind>(kind: K, afterId = 0): Logged<EntryOf<K>>[] {
    const buffer = this[kind] as RingBuffer<EntryOf<K>>;
    return buffer.sinceWithSeq(Math.max(0, seqOf(afterId) + 1)).map(({ seq, item }) => ({ id: idOf(seq), entry: item }));
  }

  /** The entry with this id, if it is still held. */
  entry<K extends LogKind>(kind: K, id: number): EntryOf<K> | undefined {
    return (this[kind] as RingBuffer<EntryOf<K>>).at(seqOf(id));
  }

  /** Id of the newest entry ever added to this log (0 when none). */
  newestId(kind: LogKind): number {
    return this[kind].nextSeq;
  }

  /** Id of the newest entry this caller has read (0: never read). */
  cursor(kind: LogKind, caller: string): number {
    return this.cursors.get(`${kind}\0${caller}`) ?? 0;
  }

  advanceCursor(kind: LogKind, caller: string, id: number): void {
    const key = `${kind}\0${caller}`;
    const at = Math.max(id, this.cursors.get(key) ?? 0);
    this.cursors.delete(key); // re-insert: Map order is then least recently used first
    this.cursors.set(key, at);
    if (this.cursors.size > MAX_CURSORS) this.cursors.delete(this.cursors.keys().next().value as string);
  }

  startFlushing(intervalMs = 1000): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref?.();
  }

  private pending(ch: Channel<any>): string {
    const entries = ch.buffer.sinceWithSeq(ch.flushedSeq);
    ch.flushedSeq = ch.buffer.nextSeq;
    return entries.length ? entries.map(({ seq, item }) => ch.format(item, idOf(seq))).join('\n') + '\n' : '';
  }

  /** Appends only entries not yet written; writes queue behind each other, so none interleave. */
  flush(): Promise<void> {
    this.writes = this.writes.then(async () => {
      for (const ch of this.channels) {
        const text = this.pending(ch);
        if (text) await appendFile(ch.file, text, { mode: 0o600 }).catch(() => {});
      }
    });
    return this.writes;
  }

  /** Final flush at shutdown. */
  flushSync(): void {
    if (this.timer) clearInterval(this.timer);
    for (const ch of this.channels) {
      const text = this.pending(ch);
      if (text) {
        try {
          appendFileSync(ch.file, text, { mode: 0o600 });
        } catch {}
      }
    }
  }
}
