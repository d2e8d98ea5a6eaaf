import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { buildSample } from "./sample";

/** Writes the sample tree to public/samples (run: `npx tsx src/resolver/testing/write-sample.node.ts`). */
export async function writeSample(root = resolve(import.meta.dirname, "../../../public/samples")): Promise<void> {
  const sample = await buildSample();
  await rm(join(root, ".fullsend"), { recursive: true, force: true });
  await rm(join(root, "fixtures"), { recursive: true, force: true });
  for (const [path, text] of sample.files) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await writeSample();
