import type { FakeTimers } from "../../platform/testing/fake-timers";
import type { FrameLink } from "../link";

/** A small seeded PRNG (mulberry32), so "random" loss and reordering repeat exactly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FakeWireOptions {
  latencyMs?: number;
  /** Probability that a frame is lost, each direction. */
  lossRate?: number;
  /** Probability that a frame is delayed past the frames behind it. */
  reorderRate?: number;
  seed?: number;
}

export interface GuestEnd {
  send(frame: Uint8Array): void;
  onFrame(receive: (frame: Uint8Array) => void): void;
}

/**
 * A wire between the peer (a FrameLink) and a test guest, delivering frames on virtual time
 * with optional seeded loss and reordering. Every delivered frame is a fresh copy, as v86's are.
 */
export function createFakeWire(timers: FakeTimers, options: FakeWireOptions = {}) {
  const latency = options.latencyMs ?? 1;
  const random = seededRandom(options.seed ?? 1);
  const stats = { toPeer: 0, toGuest: 0, lost: 0, reordered: 0 };
  let peerReceive: ((frame: Uint8Array) => void) | null = null;
  let guestReceive: ((frame: Uint8Array) => void) | null = null;

  const deliver = (frame: Uint8Array, to: () => ((frame: Uint8Array) => void) | null): void => {
    if (options.lossRate && random() < options.lossRate) {
      stats.lost++;
      return;
    }
    let delay = latency;
    if (options.reorderRate && random() < options.reorderRate) {
      stats.reordered++;
      delay += 2;
    }
    const copy = frame.slice();
    timers.setTimeout(() => to()?.(copy), delay);
  };

  const peerLink: FrameLink = {
    onFrame(receive) {
      peerReceive = receive;
      return () => {
        peerReceive = null;
      };
    },
    send(frame) {
      stats.toGuest++;
      deliver(frame, () => guestReceive);
    },
  };
  const guest: GuestEnd = {
    send(frame) {
      stats.toPeer++;
      deliver(frame, () => peerReceive);
    },
    onFrame(receive) {
      guestReceive = receive;
    },
  };
  return { peerLink, guest, stats };
}
