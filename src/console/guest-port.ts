import type { WatchedConsole } from "./command-watch";
import type { ConsoleDriver } from "./console-driver";

/**
 * The part of a running guest that console tasks use: its driver, whether its shell is idle,
 * the lines it prints, and the 9p share it reads files from. The page's guest (v86 in a
 * worker) and the Node host's both have it; tasks never see the emulator behind it.
 */
export interface GuestPort {
  readonly driver: ConsoleDriver;
  readonly console: {
    readonly shell: { readonly idle: boolean };
    /** Every complete line the guest prints; answers a function that stops listening. */
    onLine(listener: (line: string) => void): () => void;
  };
  /** Writes a file into the share the guest mounts at /mnt/tab, creating its folders. */
  writeFile(path: string, bytes: Uint8Array): Promise<void>;
}

/** A guest whose console can also be watched command by command (the lessons' judge reads each command's window). */
export interface WatchedGuest extends GuestPort {
  readonly console: GuestPort["console"] & WatchedConsole;
}
