import type { FrameLink } from "../../net";
import { createEmitter } from "../../platform";

/**
 * The guest's NIC as the page sees it before its network listens. The network connects once its
 * code is in, after the guest already runs (and may already have typed a command that connects
 * somewhere, start-guest.ts): what the guest sends meanwhile waits here, so none is lost.
 *
 * The waiting frames reach the first listener a task after it subscribed, not during the call:
 * the network subscribes when it builds its peer and adds the proxy's listener right after,
 * and a SYN delivered in between would be refused (a reset) for want of that listener.
 */
export interface HeldLink {
  link: FrameLink;
  /** A frame from the guest. */
  receive(frame: Uint8Array): void;
}

export function createHeldLink(send: (frame: Uint8Array) => void): HeldLink {
  const listeners = createEmitter<Uint8Array>();
  let held: Uint8Array[] | null = [];
  return {
    receive(frame) {
      if (held) held.push(frame);
      else listeners.emit(frame);
    },
    link: {
      onFrame(receive) {
        let stopped = false;
        let stop = () => {
          stopped = true;
        };
        if (held === null) stop = listeners.subscribe(receive);
        else
          setTimeout(() => {
            const waiting = held ?? [];
            held = null;
            if (stopped) return;
            stop = listeners.subscribe(receive);
            for (const frame of waiting) receive(frame);
          }, 0);
        return () => stop();
      },
      send,
    },
  };
}
