/**
 * What a Wisp client may have sent on one stream, by the CONTINUE frames the relay sent it.
 *
 * CONTINUE carries an absolute count: "from when you read this, you may send n more". The
 * relay cannot know when the client read it, and frames sent under an earlier grant may still
 * be on their way (the client's WebSocket buffer, both kernels' socket buffers) when a newer
 * grant arrives. What is certain is the sum: a client that kept to every grant it read has
 * sent at most the first grant plus every later one the relay sent. Only past that sum is a
 * client ignoring CONTINUE; memory is held by the byte budgets, not by this count.
 */
export class GrantLedger {
  private grantedInAll: number;
  private receivedInAll = 0;

  constructor(firstGrant: number) {
    this.grantedInAll = firstGrant;
  }

  /** The relay sent a CONTINUE of n frames. */
  grant(frames: number): void {
    this.grantedInAll += Math.max(0, frames);
  }

  /** A DATA frame came in: false when it is past every grant the relay has sent. */
  receive(): boolean {
    this.receivedInAll++;
    return this.receivedInAll <= this.grantedInAll;
  }

  get received(): number {
    return this.receivedInAll;
  }

  get granted(): number {
    return this.grantedInAll;
  }
}

/**
 * When the relay sends a stream its next CONTINUE, and for how many frames: only once the client
 * has used the last grant (as many DATA frames came in since it was sent as it granted) and no
 * more than half a grant is queued for the destination; then as many frames as the queue has
 * room for.
 *
 * CONTINUE is an absolute count from when the client reads it, and the relay cannot tell when
 * that was. Granting after every half grant written (the schedule before this one) let several
 * CONTINUEs cross a fast client's frames: each one it read allowed a fresh grant, and when the
 * destination paused, a client keeping to every CONTINUE it read queued past any fixed budget.
 * Here a grant goes only once as many frames came in as the last one allowed, so grants no
 * longer pile up ahead of the client's frames (at most one grant queued, in the tests and the
 * bench). And a client waiting for credit always gets one: since it read the last CONTINUE it
 * has sent all that CONTINUE granted, and all of it came after the relay sent it
 * (docs/limits.md, "The relay").
 */
export class GrantSchedule {
  private lastGrant: number;
  private receivedSinceGrant = 0;

  /** `grant`: the frames of a full grant, which is also the first (the connection's CONTINUE). */
  constructor(private readonly grant: number) {
    this.lastGrant = grant;
  }

  /** A DATA frame came in. */
  received(): void {
    this.receivedSinceGrant++;
  }

  /** The frames to grant now (send a CONTINUE of them), or null: not yet. `queued`: frames the destination has not taken. */
  due(queued: number): number | null {
    const room = this.grant - queued;
    if (room < this.grant / 2 || this.receivedSinceGrant < this.lastGrant) return null;
    this.lastGrant = room;
    this.receivedSinceGrant = 0;
    return room;
  }
}
