import { afterEach, describe, expect, it, vi } from "vitest";
import {
  abandonEarlyDownloads,
  type EarlyDownload,
  earlyDownloadWaiting,
  snapshotDatabaseSeen,
  takeEarlyDownload,
} from "./early-downloads";

function started(): EarlyDownload & { aborted: boolean } {
  const download = { response: Promise.resolve(new Response("state")), aborted: false, abort: () => undefined };
  download.abort = () => {
    download.aborted = true;
  };
  return download;
}

describe("a first visit's early downloads", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("are taken once, by the absolute URL of what the page asks for", () => {
    const state = started();
    vi.stubGlobal("location", { href: "http://127.0.0.1:4173/play/" });
    vi.stubGlobal("window", { __tabEarlyDownloads: { "http://127.0.0.1:4173/play/guest/state.bin.zst": state } });
    expect(takeEarlyDownload("guest/bzImage")).toBeNull();
    expect(takeEarlyDownload("guest/state.bin.zst")).toBe(state);
    expect(takeEarlyDownload("guest/state.bin.zst")).toBeNull();
  });

  it("that nobody took are aborted, and ones taken are not", () => {
    const taken = started();
    const left = started();
    vi.stubGlobal("location", { href: "http://127.0.0.1:4173/" });
    vi.stubGlobal("window", { __tabEarlyDownloads: { "http://127.0.0.1:4173/a": taken, "http://127.0.0.1:4173/b": left } });
    takeEarlyDownload("a");
    abandonEarlyDownloads();
    expect(left.aborted).toBe(true);
    expect(taken.aborted).toBe(false);
    expect(takeEarlyDownload("b")).toBeNull();
  });

  it("say whether one waits for a URL without taking it", () => {
    const state = started();
    vi.stubGlobal("location", { href: "http://127.0.0.1:4173/play/" });
    vi.stubGlobal("window", { __tabEarlyDownloads: { "http://127.0.0.1:4173/play/guest/state.bin.zst": state } });
    expect(earlyDownloadWaiting("guest/state.bin.zst")).toBe(true);
    expect(earlyDownloadWaiting("guest/bzImage")).toBe(false);
    expect(takeEarlyDownload("guest/state.bin.zst")).toBe(state);
    expect(earlyDownloadWaiting("guest/state.bin.zst")).toBe(false);
  });

  it("are none where no early script ran", () => {
    expect(takeEarlyDownload("http://127.0.0.1:4173/guest/state.bin.zst")).toBeNull();
  });

  it("say whether IndexedDB holds a snapshot database, as the early script found; a failed answer counts as one", async () => {
    expect(await snapshotDatabaseSeen()).toBe(false);
    vi.stubGlobal("window", { __tabSnapshotDatabase: Promise.resolve(true) });
    expect(await snapshotDatabaseSeen()).toBe(true);
    vi.stubGlobal("window", { __tabSnapshotDatabase: Promise.resolve(false) });
    expect(await snapshotDatabaseSeen()).toBe(false);
    vi.stubGlobal("window", { __tabSnapshotDatabase: Promise.reject(new Error("IndexedDB is gone")) });
    expect(await snapshotDatabaseSeen()).toBe(true);
  });
});
