import type { Guest } from "./boot";

/** The 9p filesystem object v86 keeps on the emulator (not on its public types). */
interface Fs9p {
  SearchPath(path: string): { id: number };
  CreateDirectory(name: string, parentId: number): number;
}

/**
 * Writes a file into the share the guest mounts at /mnt/tab (v86 virtio-9p, tag host9p),
 * creating its parent folders first (v86's `create_file` needs them to exist).
 */
export async function writeShareFile(guest: Guest, path: string, bytes: Uint8Array): Promise<void> {
  const fs = (guest.emulator as unknown as { fs9p?: Fs9p }).fs9p;
  if (!fs) throw new Error("the emulator has no 9p filesystem");
  const parts = path.split("/").filter((p) => p !== "");
  let parent = 0;
  let sofar = "";
  for (const dir of parts.slice(0, -1)) {
    sofar += `/${dir}`;
    const found = fs.SearchPath(sofar).id;
    parent = found >= 0 ? found : fs.CreateDirectory(dir, parent);
  }
  await guest.writeFile(`/${parts.join("/")}`, bytes);
}
