/** The part of v86's 9p filesystem (`emulator.fs9p`, not on its public types) the share needs. */
export interface ShareFs {
  SearchPath(path: string): { id: number };
  CreateDirectory(name: string, parentId: number): number;
}

/** The share's path for `path`: one leading slash, no empty or trailing parts. */
export function sharePath(path: string): string {
  return `/${path
    .split("/")
    .filter((p) => p !== "")
    .join("/")}`;
}

/**
 * Creates the parent folders of `path` in the share the guest mounts at /mnt/tab (v86's
 * `create_file` needs them to exist), then writes the file with `create`.
 */
export async function writeIntoShare(
  fs: ShareFs,
  create: (path: string, bytes: Uint8Array) => Promise<void>,
  path: string,
  bytes: Uint8Array,
): Promise<void> {
  const parts = sharePath(path).split("/").slice(1);
  let parent = 0;
  let sofar = "";
  for (const dir of parts.slice(0, -1)) {
    sofar += `/${dir}`;
    const found = fs.SearchPath(sofar).id;
    parent = found >= 0 ? found : fs.CreateDirectory(dir, parent);
  }
  await create(`/${parts.join("/")}`, bytes);
}
