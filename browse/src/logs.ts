import { appendFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { RingBuffer } from './ring-buffer';

export interface ConsoleEntry { ts: number; level: string; text: string }
export interface NetworkEntry { ts: number; method: string; url: string; status: number | string; ms: number; bytes?: number }
export interface DialogEntry { ts: number; type: string; message: string; action: string }

export const formatConsole = (e: ConsoleEntry) => `[${iso(e.ts)}] [${e.level}] ${e.text}`;
export const formatNetwork = (e: NetworkEntry) =>
  `[${iso(e.ts)}] ${e.method} ${e.url} → ${e.status} (${e.ms}ms${e.bytes === undefined ? '' : `, ${e.bytes}B`})`;
export const formatDialog = (e: DialogEntry) => `[${iso(e.ts)}] [${e.type}] ${JSON.stringify(e.message)} → ${e.action}`;

const iso = (ts: number) => new Date(ts).toISOString();

interface Channel<T> {
  buffer: RingBuffer<T>;
  format: (e: T) => string;
  file: string;
  flushedSeq: number;
}

// Console, network and dialog events in memory (commands read these), mirrored to disk once a second.
export class LogStore {
  readonly console: RingBuffer<ConsoleEntry>;
  readonly network: RingBuffer<NetworkEntry>;
  readonly dialog: RingBuffer<DialogEntry>;
  private readonly channels: Channel<any>[];
  private timer: ReturnType<typeof setInterval> | undefined;
  private writes: Promise<void> = Promise.resolve();

  constructor(capacity: number, fileFor: (kind: 'console' | 'network' | 'dialog') => string) {
    this.console = new RingBuffer(capacity);
    this.network = new RingBuffer(capacity);
    this.dialog = new RingBuffer(capacity);
    this.channels = [
      { buffer: this.console, format: formatConsole, file: fileFor('console'), flushedSeq: 0 },
      { buffer: this.network, format: formatNetwork, file: fileFor('network'), flushedSeq: 0 },
      { buffer: this.dialog, format: formatDialog, file: fileFor('dialog'), flushedSeq: 0 },
    ];
  }

  startFlushing(intervalMs = 1000): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref?.();
  }

  private pending(ch: Channel<any>): string {
    const entries = ch.buffer.since(ch.flushedSeq);
    ch.flushedSeq = ch.buffer.nextSeq;
    return entries.length ? entries.map(ch.format).join('\n') + '\n' : '';
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
