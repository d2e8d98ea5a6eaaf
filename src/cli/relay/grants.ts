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
