import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// docs/architecture.md's folder table says which folders each folder of src/ may import; this
// holds the code to it (every relative import, re-export and import() that crosses from one
// folder of src/ into another), so the table cannot drift from the code unnoticed. Tests
// (`*.test.ts`) are left out: they may assemble real neighbours around the part they test.
// Packages (zod, yaml, v86…) and the DOM are named in the table for the reader; the compiler
// and scripts/core-has-no-dom.test.ts hold the DOM out of the core.

const ARCHITECTURE = "docs/architecture.md";
const SRC = "src";

/** The folder table's rows: folder (under src/) → the "may import" column's words, in table order. */
function readFolderTable(markdown: string): { folder: string; mayImport: string[] }[] {
  const rows: { folder: string; mayImport: string[] }[] = [];
  let inTable = false;
  for (const line of markdown.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length >= 5 && cells[1] === "folder" && cells[3] === "may import") {
      inTable = true;
      continue;
    }
    if (!inTable) continue;
    if (!line.startsWith("|")) break;
    const folder = /^`src\/([a-z-]+)`$/.exec(cells[1] ?? "");
    if (!folder) continue; // the separator row, and the rows outside src/ (guest/, e2e/, bench/)
    const words = (cells[3] ?? "")
      .split(",")
      .map((w) =>
        w
          .replace(/`/g, "")
          .replace(/\(.*\)/, "")
          .trim(),
      )
      .filter((w) => w !== "" && w !== "—");
    rows.push({ folder: folder[1]!, mayImport: words });
  }
  return rows;
}

/** What each folder may import: the folders it names, and for "everything above" every folder in an earlier row. */
function allowedImports(rows: readonly { folder: string; mayImport: string[] }[]): Map<string, Set<string>> {
  const allowed = new Map<string, Set<string>>();
  const folders = new Set(rows.map((r) => r.folder));
  rows.forEach((row, index) => {
    const set = new Set<string>();
    for (const word of row.mayImport) {
      if (word === "everything above") for (const above of rows.slice(0, index)) set.add(above.folder);
      else if (folders.has(word)) set.add(word);
    }
    allowed.set(row.folder, set);
  });
  return allowed;
}

const isFolder = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every import from one folder of src/ into another: "from → to" with the file that does it. */
function crossFolderImports(): { from: string; to: string; file: string }[] {
  const found: { from: string; to: string; file: string }[] = [];
  for (const file of filesUnder(SRC)) {
    const from = relative(SRC, file).split(sep)[0]!;
    // The compiler's own reading of the file's imports, re-exports and import() calls.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (!spec.startsWith(".")) continue;
      const target = relative(SRC, normalize(join(dirname(file), spec))).split(sep);
      if (target[0] === ".." || target[0] === "") continue; // outside src/ (guest/, package.json)
      if (target.length === 1 && !isFolder(join(SRC, target[0]!))) continue; // a file at src/'s root (env.d.ts)
      const to = target[0]!;
      if (to !== from) found.push({ from, to, file });
    }
  }
  return found;
}

const PAGE = "src/page";

/**
 * The rooms inside src/page (the second table, "room | what is in it | may import"): room →
 * the rooms (`chrome/`) and single files (`link.ts`, `services/types.ts`) its files may import
 * from other rooms, or every room. A room is a path inside src/page: "" for the root's files,
 * `features/<name>/` for every feature folder (each is a room of its own: a feature never
 * imports another).
 */
function readRoomTable(markdown: string): Map<string, { everyRoom: boolean; words: string[] }> {
  const rooms = new Map<string, { everyRoom: boolean; words: string[] }>();
  let inTable = false;
  for (const line of markdown.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length >= 5 && cells[1] === "room" && (cells[3] ?? "").startsWith("may import")) {
      inTable = true;
      continue;
    }
    if (!inTable) continue;
    if (!line.startsWith("|")) break;
    const room = /^`src\/page\/([^`]*)`/.exec(cells[1] ?? "");
    if (!room) continue; // the separator row
    const column = cells[3] ?? "";
    const words = [...column.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rooms.set(room[1]!, { everyRoom: column.includes("every room"), words });
  }
  return rooms;
}

/** The room of a path inside src/page (a file's path relative to src/page): its row's key and its own folder. */
function roomOf(path: string): { row: string; folder: string } {
  const parts = path.split("/");
  if (parts.length === 1) return { row: "", folder: "" };
  if (parts[0] === "features" && parts.length === 2) return { row: "features/", folder: "features/" };
  if (parts[0] === "features") return { row: "features/<name>/", folder: `features/${parts[1]}/` };
  return { row: `${parts[0]}/`, folder: `${parts[0]}/` };
}

/** Every import from one room of src/page into another: the importing file and the imported file, relative to src/page. */
function crossRoomImports(): { file: string; imported: string }[] {
  const found: { file: string; imported: string }[] = [];
  for (const path of filesUnder(PAGE)) {
    const file = relative(PAGE, path).split(sep).join("/");
    const { importedFiles } = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (!spec.startsWith(".")) continue;
      let target = normalize(join(dirname(path), spec));
      if (relative(PAGE, target).startsWith("..")) continue; // outside src/page: the folder table's business
      if (isFolder(target)) target = join(target, "index.ts");
      else if (!/\.[a-z]+$/.test(target)) target = `${target}.ts`;
      const imported = relative(PAGE, target).split(sep).join("/");
      if (roomOf(file).folder !== roomOf(imported).folder) found.push({ file, imported });
    }
  }
  return found;
}

/** Whether a room's words let it import `imported`: its room (`chrome/`, `features/<name>/`) or the file itself. */
function roomMayImport(rule: { everyRoom: boolean; words: string[] }, imported: string): boolean {
  return rule.everyRoom || rule.words.includes(roomOf(imported).row) || rule.words.includes(imported);
}

describe("docs/architecture.md's room table holds for src/page", () => {
  const rooms = readRoomTable(readFileSync(ARCHITECTURE, "utf8"));

  it("lists every room of src/page", () => {
    const rows = new Set(filesUnder(PAGE).map((path) => roomOf(relative(PAGE, path).split(sep).join("/")).row));
    expect([...rows].filter((row) => !rooms.has(row))).toEqual([]);
  });

  it("every import from one room of src/page into another is one its row may import", () => {
    const broken = crossRoomImports()
      .filter(({ file, imported }) => {
        const rule = rooms.get(roomOf(file).row);
        return !rule || !roomMayImport(rule, imported);
      })
      .map(({ file, imported }) => `src/page/${file} → src/page/${imported}`);
    expect([...new Set(broken)]).toEqual([]);
  });

  it("reads rooms and files, keeps each feature a room of its own, and lets the root import every room", () => {
    const table = readRoomTable(
      "| room | what | may import (inside src/page) |\n| --- | --- | --- |\n" +
        "| `src/page/` (root) | x | every room |\n" +
        "| `src/page/features/<name>/` | x | `link.ts`, `chrome/`, `services/types.ts` |\n",
    );
    const feature = table.get("features/<name>/")!;
    expect(roomMayImport(feature, "chrome/dom.ts")).toBe(true);
    expect(roomMayImport(feature, "services/types.ts")).toBe(true);
    expect(roomMayImport(feature, "services/index.ts")).toBe(false);
    expect(roomMayImport(feature, "playground.ts")).toBe(false);
    expect(roomMayImport(feature, "features/share/mount.ts")).toBe(false);
    expect(roomOf("features/share/mount.ts")).toEqual({ row: "features/<name>/", folder: "features/share/" });
    expect(roomMayImport(table.get("")!, "features/share/mount.ts")).toBe(true);
  });
});

describe("docs/architecture.md's folder table holds for the code", () => {
  const rows = readFolderTable(readFileSync(ARCHITECTURE, "utf8"));
  const allowed = allowedImports(rows);

  it("lists every folder of src/", () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect(folders.filter((f) => !allowed.has(f))).toEqual([]);
  });

  it("every import from one folder of src/ into another is one its row may import", () => {
    const broken = crossFolderImports()
      .filter(({ from, to }) => !allowed.get(from)?.has(to))
      .map(({ from, to, file }) => `${file}: ${from} → ${to}`);
    expect([...new Set(broken)]).toEqual([]);
  });

  it("reads the table's words: named folders (a note in brackets aside), and everything above", () => {
    expect(
      readFolderTable("| folder | owns | may import |\n| --- | --- | --- |\n| `src/x` | x | log, `zod`, policy (its tests' guest) |\n"),
    ).toEqual([{ folder: "x", mayImport: ["log", "zod", "policy"] }]);
    const table = allowedImports([
      { folder: "log", mayImport: ["zod", "platform"] },
      { folder: "platform", mayImport: [] },
      { folder: "page", mayImport: ["everything above", "DOM"] },
    ]);
    expect([...table.get("log")!]).toEqual(["platform"]);
    expect([...table.get("page")!].sort()).toEqual(["log", "platform"]);
  });
});
