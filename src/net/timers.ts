import type { Timers } from "../platform";

/**
 * A re-armable deadline over one underlying timer. Moving the deadline later (what every ACK
 * does to the retransmission timer) only updates a number; the timer re-arms itself when it
 * fires early. That keeps timer churn off the per-segment path.
 */
export class Deadline {
  private at = -1;
  private handle: unknown = null;
  private handleAt = -1;

  constructor(
    private readonly timers: Timers,
    private readonly fire: () => void,
  ) {}

  get armed(): boolean {
    return this.at >= 0;
  }

  /** Fires `delayMs` from now (replacing any earlier setting). */
  set(delayMs: number): void {
    this.at = this.timers.now() + delayMs;
    if (this.handle === null || this.handleAt > this.at) this.arm();
  }

  /** Sets the deadline only if none is pending. */
  ensure(delayMs: number): void {
    if (!this.armed) this.set(delayMs);
  }

  clear(): void {
    this.at = -1;
  }

  /** Stops the underlying timer too: for a connection that is gone. */
  dispose(): void {
    this.at = -1;
    if (this.handle !== null) this.timers.clearTimeout(this.handle);
    this.handle = null;
  }

  private arm(): void {
    if (this.handle !== null) this.timers.clearTimeout(this.handle);
    this.handleAt = this.at;
    this.handle = this.timers.setTimeout(this.onTimer, Math.max(0, this.at - this.timers.now()));
  }

  private readonly onTimer = (): void => {
    this.handle = null;
    if (this.at < 0) return;
    if (this.timers.now() < this.at) {
      this.arm();
      return;
    }
    this.at = -1;
    this.fire();
  };
}
