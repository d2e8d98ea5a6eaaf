/**
 * The wire as the peer sees it: whole Ethernet frames, without any emulator detail.
 * A frame handed to `onFrame`'s callback belongs to the peer from then on (the sender must not
 * reuse its buffer); a frame given to `send` belongs to the receiver.
 */
export interface FrameLink {
  /** Calls `receive` for every frame the guest sends; returns the unsubscribe function. */
  onFrame(receive: (frame: Uint8Array) => void): () => void;
  /** Delivers one frame to the guest. */
  send(frame: Uint8Array): void;
}
