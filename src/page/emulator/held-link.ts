import type { FrameLink } from "../../net";

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
  const listeners = new Set<(frame: Uint8Array) => void>();
  let held: Uint8Array[] | null = [];
  return {
    receive(frame) {
      if (held) held.push(frame);
      else for (const listener of listeners) listener(frame);
    },
    link: {
      onFrame(receive) {
        if (held === null) listeners.add(receive);
        else
          setTimeout(() => {
            const waiting = held ?? [];
            held = null;
            listeners.add(receive);
            for (const frame of waiting) receive(frame);
          }, 0);
        return () => listeners.delete(receive);
      },
      send,
    },
  };
}
