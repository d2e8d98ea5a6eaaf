import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../bytes";
import { SHA256_HEX, type SkillBlobStore, SkillHandleRecord, type SkillHandleStore } from "./store";

/** Where `npx tab skills acquire` keeps admitted bytes and handle records by default. */
export const DEFAULT_SKILLS_CACHE = join(homedir(), ".cache", "linux-in-a-tab", "skills");

const HANDLE_FILE = /^skill:[0-9a-f]{32}$/;

/**
 * The CLI's store: `DIR/blobs/<sha256>` and `DIR/handles/<handle>.json`. Blobs are re-hashed on
 * every read; a blob whose bytes no longer hash to its name reads as absent.
 */
export function createDirStores(dir: string): { store: SkillBlobStore; handles: SkillHandleStore } {
  const blobs = join(dir, "blobs");
  const handleDir = join(dir, "handles");
  const store: SkillBlobStore = {
    async put(bytes) {
      const sha = await sha256Hex(bytes);
      await writeAtomic(join(blobs, sha), bytes);
      return sha;
    },
    async get(sha) {
      if (!SHA256_HEX.test(sha)) return null;
      const bytes = await readOrNull(join(blobs, sha));
      if (!bytes) return null;
      return (await sha256Hex(bytes)) === sha ? bytes : null;
    },
  };
  const handles: SkillHandleStore = {
    async put(record) {
      if (!HANDLE_FILE.test(record.handle)) throw new Error("a handle store only keeps handles minted by randomHandle()");
      await writeAtomic(join(handleDir, handleFileName(record.handle)), new TextEncoder().encode(`${JSON.stringify(record)}\n`));
    },
    async get(handle) {
      if (!HANDLE_FILE.test(handle)) return null;
      return parseRecord(await readOrNull(join(handleDir, handleFileName(handle))));
    },
    async list() {
      const names = await readdir(handleDir).catch(() => [] as string[]);
      const records = await Promise.all(
        names.filter((n) => n.endsWith(".json")).map(async (n) => parseRecord(await readOrNull(join(handleDir, n)))),
      );
      return records.filter((r): r is SkillHandleRecord => r !== null);
    },
  };
  return { store, handles };
}

// ":" is not portable in file names.
const handleFileName = (handle: string) => `${handle.replace(":", "-")}.json`;

function parseRecord(bytes: Uint8Array | null): SkillHandleRecord | null {
  if (!bytes) return null;
  try {
    const parsed = SkillHandleRecord.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function readOrNull(path: string): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await readFile(path));
  } catch {
    return null;
  }
}

async function writeAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const dir = join(path, "..");
  await mkdir(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
}
