// Fixed-capacity ring: O(1) push, oldest entries overwritten. Each entry gets a monotonically
// increasing sequence number so readers (the log flusher, cursors) can ask for "what is new".
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private head = 0; // index of the oldest entry
  private size = 0;
  private seq = 0; // sequence number the next push will get

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.items = new Array(capacity);
  }

  push(item: T): number {
    const tail = (this.head + this.size) % this.capacity;
    this.items[tail] = item;
    if (this.size < this.capacity) this.size++;
    else this.head = (this.head + 1) % this.capacity;
    return this.seq++;
  }

  get length(): number {
    return this.size;
  }

  /** Sequence number that the next pushed entry will receive. */
  get nextSeq(): number {
    return this.seq;
  }

  /** Entries with sequence number >= fromSeq that are still held, oldest first. */
  since(fromSeq = 0): T[] {
    return this.sinceWithSeq(fromSeq).map((x) => x.item);
  }

  /** Like `since`, with each entry's sequence number (stable across wraparound and `clear`). */
  sinceWithSeq(fromSeq = 0): { seq: number; item: T }[] {
    const firstHeld = this.seq - this.size;
    const out: { seq: number; item: T }[] = [];
    for (let s = Math.max(fromSeq, firstHeld); s < this.seq; s++) out.push({ seq: s, item: this.items[(this.head + (s - firstHeld)) % this.capacity] as T });
    return out;
  }

  /** The entry with this sequence number, if it is still held. */
  at(seq: number): T | undefined {
    const firstHeld = this.seq - this.size;
    return Number.isInteger(seq) && seq >= firstHeld && seq < this.seq ? this.items[(this.head + (seq - firstHeld)) % this.capacity] : undefined;
  }

  toArray(): T[] {
    return this.since(0);
  }

  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.size = 0;
  }
}
