import type { FrameLink } from "./link";

/**
 * The two methods of v86's bus this link uses (v86 0.5.462, `emulator.bus`): the only place in
 * src/net that knows v86 exists.
 */
export interface V86Bus {
  register(name: string, listener: (data: Uint8Array) => void, thisValue?: unknown): void;
  send(name: string, data: Uint8Array): void;
}

/**
 * The guest's NIC `net<id>` as a FrameLink. v86's virtio-net sends `net0-send` with a view
 * (byteOffset 12, after the virtio header) into a buffer it allocates afresh for every frame
 * and never reuses, so the frame is passed on without a copy. On `net0-receive` v86 copies the
 * frame into the guest's ring itself, so the peer's buffer is not retained either.
 */
export function connectV86Link(bus: V86Bus, nic = 0): FrameLink {
  const sendName = `net${nic}-send`;
  const receiveName = `net${nic}-receive`;
  return {
    onFrame(receive) {
      let active = true;
      const listener = (frame: Uint8Array): void => {
        if (active) receive(frame);
      };
      bus.register(sendName, listener);
      return () => {
        // The bus interface has no unregister in this link's contract: the listener goes quiet.
        active = false;
      };
    },
    send(frame) {
      bus.send(receiveName, frame);
    },
  };
}
