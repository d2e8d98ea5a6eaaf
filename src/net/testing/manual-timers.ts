import type { Timers } from "../../platform";

interface Pending {
  id: number;
  at: number;
  callback: () => void;
}

/** Lets queued promise reactions (Web Streams, async consumers) run to completion. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Deterministic virtual time: nothing fires until a test advances the clock. */
export class ManualTimers implements Timers {
  private time = 0;
  private nextId = 1;
  private pending: Pending[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.push({ id, at: this.time + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((p) => p.id !== handle);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Moves time forward by `ms`, firing due timers in order and settling promises after each. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      let next: Pending | undefined;
      for (const p of this.pending) if (p.at <= end && (!next || p.at < next.at || (p.at === next.at && p.id < next.id))) next = p;
      if (!next) break;
      const due = next;
      this.pending = this.pending.filter((p) => p !== due);
      this.time = Math.max(this.time, due.at);
      due.callback();
      await settle();
    }
    this.time = end;
    await settle();
  }

  /** Advances in steps until `done()` holds; fails after `limitMs` of virtual time. */
  async runUntil(done: () => boolean, limitMs: number, stepMs = 1): Promise<void> {
    const start = this.time;
    while (!done()) {
      if (this.time - start > limitMs) throw new Error(`not done after ${limitMs} ms of virtual time`);
      await this.advance(stepMs);
    }
  }
}
