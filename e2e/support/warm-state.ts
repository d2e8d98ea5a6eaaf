import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { SNAPSHOT_DATABASE } from "../../src/page/emulator/snapshot-names";

/**
 * One cold boot for the whole suite: the first test file that boots the guest keeps the state
 * the page saved in IndexedDB (src/page/emulator/snapshots.ts) in `.e2e/`; later files seed
 * their fresh browser context with it, so the page restores instead of booting (the same path
 * a returning visitor takes). Tests of the boot itself open cold. The key names the image
 * hashes, so a rebuilt image never restores an old state: it boots cold and replaces it.
 */
const DIR = join(process.cwd(), ".e2e");
const STATE = join(DIR, "warm-state.bin");
const META = join(DIR, "warm-state.json");
const DB = SNAPSHOT_DATABASE;
const STORE = "states";
const CHUNK = 8 * 1024 * 1024;

/**
 * Puts the kept state into this context's IndexedDB (same origin as the playground), under the
 * key the page saved it with, or under `asKey` (a state saved by another page or machine).
 * Returns false when there is none.
 */
export async function seedWarmState(page: Page, asKey?: string): Promise<boolean> {
  if (!existsSync(STATE) || !existsSync(META)) return false;
  const key = asKey ?? (JSON.parse(readFileSync(META, "utf8")) as { key: string }).key;
  const bytes = readFileSync(STATE);
  await page.route("**/__e2e/blank", (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>seed</title>" }),
  );
  await page.route("**/__e2e/warm-state", (route) => route.fulfill({ status: 200, contentType: "application/octet-stream", body: bytes }));
  await page.goto("./__e2e/blank");
  await page.evaluate(
    async ({ key, db, store }) => {
      const state = await (await fetch("./warm-state")).arrayBuffer();
      const open = indexedDB.open(db);
      open.onupgradeneeded = () => open.result.createObjectStore(store);
      const idb = await new Promise<IDBDatabase>((resolve, reject) => {
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      await new Promise<void>((resolve, reject) => {
        const tx = idb.transaction(store, "readwrite");
        tx.objectStore(store).put(state, key);
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      idb.close();
    },
    { key, db: DB, store: STORE },
  );
  await page.unroute("**/__e2e/blank");
  await page.unroute("**/__e2e/warm-state");
  return true;
}

/** After a cold boot (the page logged `snapshot-save`), keeps the saved state for later files. */
export async function keepWarmState(page: Page): Promise<void> {
  const cold = await page.evaluate(() => window.__tab?.log.ofKind("boot.progress").some((e) => e.phase === "snapshot-save") ?? false);
  if (!cold) return;
  const found = await page.evaluate(
    async ({ db, store }) => {
      const open = indexedDB.open(db);
      const idb = await new Promise<IDBDatabase>((resolve, reject) => {
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const entry = await new Promise<{ key: string; value: ArrayBuffer } | null>((resolve, reject) => {
        const request = idb.transaction(store, "readonly").objectStore(store).openCursor();
        request.onsuccess = () => {
          const cursor = request.result;
          resolve(cursor && cursor.value instanceof ArrayBuffer ? { key: String(cursor.key), value: cursor.value } : null);
        };
        request.onerror = () => reject(request.error);
      });
      idb.close();
      if (!entry) return null;
      window.__warmState = entry.value;
      return { key: entry.key, size: entry.value.byteLength };
    },
    { db: DB, store: STORE },
  );
  if (!found) return;
  const parts: Buffer[] = [];
  for (let at = 0; at < found.size; at += CHUNK) {
    const base64 = await page.evaluate(
      ({ at, end }) => {
        if (!window.__warmState) throw new Error("the kept state was not read");
        const bytes = new Uint8Array(window.__warmState, at, end - at);
        let text = "";
        for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return btoa(text);
      },
      { at, end: Math.min(at + CHUNK, found.size) },
    );
    parts.push(Buffer.from(base64, "base64"));
  }
  await page.evaluate(() => {
    delete window.__warmState;
  });
  mkdirSync(DIR, { recursive: true });
  // Written aside and renamed, so a file running at the same time never reads half a state.
  const tmp = `${STATE}.${process.pid}`;
  writeFileSync(tmp, Buffer.concat(parts));
  renameSync(tmp, STATE);
  writeFileSync(META, JSON.stringify({ key: found.key, bytes: found.size }));
}
