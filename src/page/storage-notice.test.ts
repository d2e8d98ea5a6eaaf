import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { announceStorage, embedderTarget } from "./storage-notice";

const denied = { localStorage: null, indexedDB: false };

function framed() {
  const posted: { message: unknown; origin: string }[] = [];
  const parent = { postMessage: (message: unknown, origin: string) => posted.push({ message, origin }) };
  return { posted, scope: { parent, self: {} } };
}

describe("what the page says when it keeps nothing", () => {
  it("an embed tells its parent once, to the embedder's origin, what will not be kept", () => {
    const log = createEventLog();
    const written: string[] = [];
    const { posted, scope } = framed();
    announceStorage({
      probe: denied,
      log,
      terminal: { write: (t) => written.push(t) },
      link: { embed: "1", embedder: "https://docs.example/page" },
      scope,
    });
    expect(posted).toEqual([
      {
        message: expect.objectContaining({
          source: "linux-in-a-tab",
          type: "page.storage-denied",
          notKept: expect.arrayContaining(["lesson and tour progress"]),
        }),
        origin: "https://docs.example",
      },
    ]);
    expect(log.ofKind("note").map((e) => e.level)).toEqual(["warning"]);
    expect(written.join("")).toContain("will not be kept");
  });

  it("a page whose browser keeps everything says nothing and posts nothing", () => {
    const log = createEventLog();
    const { posted, scope } = framed();
    announceStorage({
      probe: { localStorage: {} as Storage, indexedDB: true },
      log,
      terminal: { write: () => undefined },
      link: { embed: "1", embedder: null },
      scope,
    });
    expect(posted).toEqual([]);
    expect(log.ofKind("note")).toEqual([]);
  });

  it("an embedder that is not an origin gets no message, and a page that is not embedded posts none", () => {
    expect(embedderTarget("docs.example")).toBeNull();
    expect(embedderTarget(null)).toBe("*");
    const { posted, scope } = framed();
    const log = createEventLog();
    announceStorage({ probe: denied, log, terminal: { write: () => undefined }, link: { embed: null, embedder: null }, scope });
    announceStorage({ probe: denied, log, terminal: { write: () => undefined }, link: { embed: "1", embedder: "docs.example" }, scope });
    expect(posted).toEqual([]);
  });
});
