/**
 * The busy traffic between the page and the emulator's worker, on a MessagePort of its own
 * (Comlink carries the rare calls: start, save, write a file). The guest's NIC frames go both
 * ways, its serial output to the page and typed text to it. Frames and output made within one
 * task go as one message after it, so an emulation slice that sends forty frames costs one
 * message, not forty.
 */
export type MachineMessage =
  | { kind: "frames"; frames: Uint8Array[] }
  | { kind: "serial"; bytes: Uint8Array }
  | { kind: "type"; text: string }
  /** One of the kernel's Landlock audit records from the guest's control line (guest-control.ts). */
  | { kind: "audit"; type: number; text: string };

/** Collects what is queued within one task and hands it on once, in order, after it. */
export function batchPerTask<T>(flush: (items: T[]) => void): (item: T) => void {
  let pending: T[] = [];
  return (item) => {
    pending.push(item);
    if (pending.length > 1) return;
    queueMicrotask(() => {
      const items = pending;
      pending = [];
      flush(items);
    });
  };
}
