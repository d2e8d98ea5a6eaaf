import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createEventLog, LogEvent, parseJsonLines, toJsonLines } from "../log";
import {
  checkOrgAllowlist,
  createOrgAllowlist,
  ORG_ALLOWLIST_KEY,
  type OrgAllowlistStorage,
  orgAllowlistCanonical,
  orgAllowlistHash,
  parseOrgAllowlistText,
} from "./index";

const RAW = "https://raw.githubusercontent.com/example-org/agent-library/";
const GH = "https://github.com/example-org/agent-library/";
const ACME = "https://raw.githubusercontent.com/acme-labs/agent-harnesses/";
const DEFAULTS = [GH, RAW];

describe("an org allowlist entry is accepted only as a normal-form https directory prefix", () => {
  it.each([
    ["a repository prefix", ACME],
    ["a whole host", "https://raw.githubusercontent.com/"],
    ["an explicit port (it then allows only that port)", "https://git.example:8443/org/"],
  ])("accepts %s", (_, entry) => {
    expect(checkOrgAllowlist([entry])).toEqual({ ok: true, entries: [entry] });
  });

  it.each([
    ["plain http", "http://raw.githubusercontent.com/acme/", "only https://"],
    ["no trailing slash (a sibling acme-evil would match)", "https://raw.githubusercontent.com/acme", 'does not end in "/"'],
    ["a query", "https://raw.githubusercontent.com/acme/?x=/", "query or fragment"],
    ["userinfo naming another host", "https://raw.githubusercontent.com@evil.example/acme/", "userinfo"],
    ["an IP literal", "https://127.0.0.1/acme/", "IP literal"],
    ["a backslash", "https://raw.githubusercontent.com/acme\\..\\other/", "backslash"],
    ["a double-encoded escape", "https://raw.githubusercontent.com/acme/%252e%252e/", "%25"],
    [
      "a dot-dot segment (it allows another tree than it reads)",
      "https://raw.githubusercontent.com/acme/../other/",
      "write it as https://raw.githubusercontent.com/other/",
    ],
    ["an escaped dot-dot", "https://raw.githubusercontent.com/acme/%2e%2e/other/", "not in normal form"],
    ["an escaped unreserved character", "https://raw.githubusercontent.com/%61cme/", "write it as https://raw.githubusercontent.com/acme/"],
    ["an escaped slash", "https://raw.githubusercontent.com/acme%2fother/", "escaped slash"],
    ["an upper-case escaped slash", "https://raw.githubusercontent.com/acme%2Fother/", "escaped slash"],
    ["an upper-case host", "https://Raw.GitHubusercontent.com/acme/", "write it as https://raw.githubusercontent.com/acme/"],
    ["a dot-segment with parameters", "https://raw.githubusercontent.com/acme/..;x/", "dot-segment"],
    ["an empty path segment", "https://raw.githubusercontent.com/acme//x/", "empty path segment"],
    ["a trailing-dot host", "https://raw.githubusercontent.com./acme/", "write it as https://raw.githubusercontent.com/acme/"],
  ])("refuses %s, saying why", (_, entry, why) => {
    const result = checkOrgAllowlist([entry]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.join("\n")).toContain(why);
  });

  it("refuses a repeated entry and more than 64 entries", () => {
    expect(checkOrgAllowlist([ACME, ACME])).toEqual({ ok: false, errors: [`entry 2: ${ACME} repeats entry 1`] });
    const many = Array.from({ length: 65 }, (_, i) => `https://h${i}.example/`);
    expect(checkOrgAllowlist(many)).toMatchObject({ ok: false, errors: ["at most 64 entries"] });
  });
});

describe("the allowlist editor's text is one prefix per line, errors naming the line", () => {
  it("ignores blank lines and # comments, trims spaces", () => {
    expect(parseOrgAllowlistText(`# org\n\n  ${ACME}  \r\n${GH}\n`)).toEqual({ ok: true, entries: [ACME, GH] });
  });

  it("names the line of each bad entry and of a repeat", () => {
    expect(parseOrgAllowlistText(`${ACME}\n\nhttp://x.example/\n${ACME}\n`)).toEqual({
      ok: false,
      errors: ["line 3: http://x.example/: only https:// URLs can match an allowlist entry", `line 4: ${ACME} repeats line 1`],
    });
  });
});

describe("the allowlist's hash is the sha256 of its canonical form", () => {
  it("is the sorted, de-duplicated JSON array, so a reorder keeps the hash", async () => {
    expect(orgAllowlistCanonical([RAW, GH, RAW])).toBe(JSON.stringify([GH, RAW]));
    const expected = createHash("sha256")
      .update(JSON.stringify([GH, RAW]))
      .digest("hex");
    expect(await orgAllowlistHash([RAW, GH])).toBe(expected);
    expect(await orgAllowlistHash([GH, RAW])).toBe(expected);
  });
});

function memoryStorage(initial: Record<string, string> = {}): OrgAllowlistStorage & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => void data.set(key, value),
    removeItem: (key) => void data.delete(key),
  };
}

function setup(storage: OrgAllowlistStorage | null = memoryStorage()) {
  const log = createEventLog();
  const allowlist = createOrgAllowlist({ log, storage, loadDefault: async () => DEFAULTS });
  return { log, allowlist };
}

describe("the operator's org allowlist: persisted, each change one logged event", () => {
  it("starts as the default (the bundled sample's) and logs nothing for it", async () => {
    const { log, allowlist } = setup();
    await allowlist.ready;
    expect(allowlist.entries()).toEqual(DEFAULTS);
    expect(allowlist.hash()).toBe(await orgAllowlistHash(DEFAULTS));
    expect(allowlist.notice()).toBeNull();
    expect(log.ofKind("resolver.allowlist")).toEqual([]);
  });

  it("a change is one resolver.allowlist event with the old and new hash, what was added and removed, and is saved", async () => {
    const storage = memoryStorage();
    const { log, allowlist } = setup(storage);
    const result = await allowlist.replaceText(`${GH}\n${ACME}\n`, "resolver panel");
    expect(result).toEqual({ ok: true, hash: await orgAllowlistHash([GH, ACME]), changed: true });
    expect(log.ofKind("resolver.allowlist")).toEqual([
      expect.objectContaining({
        oldHash: await orgAllowlistHash(DEFAULTS),
        newHash: await orgAllowlistHash([GH, ACME]),
        source: "resolver panel",
        added: [ACME],
        removed: [RAW],
      }),
    ]);
    expect(JSON.parse(storage.data.get(ORG_ALLOWLIST_KEY) ?? "null")).toEqual({ version: 1, entries: [GH, ACME] });
  });

  it("the event is a parse-checked log event: it survives a JSON lines round trip", async () => {
    const { log, allowlist } = setup();
    await allowlist.replace([...DEFAULTS, ACME], "test");
    const [event] = log.ofKind("resolver.allowlist");
    expect(LogEvent.safeParse(event).success).toBe(true);
    const parsed = parseJsonLines(toJsonLines(log.events()));
    expect(parsed.errors).toEqual([]);
    expect(parsed.events.filter((e) => e.kind === "resolver.allowlist")).toEqual([event]);
  });

  it("text that does not validate is never applied, saved or logged as a change", async () => {
    const storage = memoryStorage();
    const { log, allowlist } = setup(storage);
    const result = await allowlist.replaceText(`${ACME}\nhttps://raw.githubusercontent.com/acme/../x/\n`, "resolver panel");
    expect(result.ok).toBe(false);
    await allowlist.ready;
    expect(allowlist.entries()).toEqual(DEFAULTS);
    expect(storage.data.has(ORG_ALLOWLIST_KEY)).toBe(false);
    expect(log.ofKind("resolver.allowlist")).toEqual([]);
  });

  it("a reorder changes nothing that is allowed: no event", async () => {
    const { log, allowlist } = setup();
    expect(await allowlist.replace([RAW, GH], "resolver panel")).toMatchObject({ ok: true, changed: false });
    expect(log.ofKind("resolver.allowlist")).toEqual([]);
  });

  it("is read back on the next visit", async () => {
    const storage = memoryStorage();
    await setup(storage).allowlist.replace([ACME], "resolver panel");
    const { allowlist } = setup(storage);
    await allowlist.ready;
    expect(allowlist.entries()).toEqual([ACME]);
    expect(allowlist.notice()).toBeNull();
  });

  it.each([
    ["not JSON", "{"],
    ["another shape", JSON.stringify({ entries: [ACME] })],
    [
      "an entry that is a path-confusion spelling",
      JSON.stringify({ version: 1, entries: ["https://raw.githubusercontent.com/acme/../x/"] }),
    ],
  ])("falls back to the default on saved data that is %s, with a visible notice", async (_, saved) => {
    const { log, allowlist } = setup(memoryStorage({ [ORG_ALLOWLIST_KEY]: saved }));
    await allowlist.ready;
    expect(allowlist.entries()).toEqual(DEFAULTS);
    expect(allowlist.notice()).toMatch(/^the saved org allowlist was not valid \(.+\); the default is used/);
    expect(log.ofKind("note").map((n) => n.message)).toEqual([allowlist.notice()]);
  });

  it("still works when storage refuses to save, and says the list holds for this page only", async () => {
    const storage = memoryStorage();
    storage.setItem = () => {
      throw new Error("QuotaExceededError");
    };
    const { allowlist } = setup(storage);
    expect(await allowlist.replace([ACME], "resolver panel")).toMatchObject({ ok: true, changed: true });
    expect(allowlist.entries()).toEqual([ACME]);
    expect(allowlist.notice()).toContain("could not be saved");
  });

  it("reset goes back to the default and forgets the saved list", async () => {
    const storage = memoryStorage();
    const { log, allowlist } = setup(storage);
    await allowlist.replace([ACME], "resolver panel");
    await allowlist.reset("reset");
    expect(allowlist.entries()).toEqual(DEFAULTS);
    expect(storage.data.has(ORG_ALLOWLIST_KEY)).toBe(false);
    expect(log.ofKind("resolver.allowlist").map((e) => [e.added, e.removed])).toEqual([
      [[ACME], DEFAULTS],
      [DEFAULTS, [ACME]],
    ]);
  });
});

describe("a share link only proposes entries: the list never widens without the operator's accept", () => {
  it("a proposal changes nothing until decided; reject leaves the list unchanged", async () => {
    const { log, allowlist } = setup();
    let decided = false;
    const decision = allowlist.propose([ACME], "share link").then((d) => {
      decided = true;
      return d;
    });
    await allowlist.ready;
    await Promise.resolve();
    expect(allowlist.proposal()).toEqual({ entries: [ACME], source: "share link", problems: [] });
    expect(allowlist.entries()).toEqual(DEFAULTS);
    expect(decided).toBe(false);
    expect(await allowlist.decide(false)).toBe("rejected");
    expect(await decision).toBe("rejected");
    expect(allowlist.entries()).toEqual(DEFAULTS);
    expect(allowlist.proposal()).toBeNull();
    expect(log.ofKind("resolver.allowlist")).toEqual([]);
  });

  it("accept adds the proposed entries as one change from the link", async () => {
    const { log, allowlist } = setup();
    const decision = allowlist.propose([ACME], "share link");
    await allowlist.ready;
    await Promise.resolve();
    expect(await allowlist.decide(true)).toBe("accepted");
    expect(await decision).toBe("accepted");
    expect(allowlist.entries()).toEqual([...DEFAULTS, ACME]);
    expect(log.ofKind("resolver.allowlist")).toEqual([
      expect.objectContaining({ source: "share link (accepted)", added: [ACME], removed: [] }),
    ]);
  });

  it("entries already covered are not proposed; invalid ones are dropped with their reason", async () => {
    const { log, allowlist } = setup();
    const decision = allowlist.propose([`${RAW}sub/`, "https://raw.githubusercontent.com/acme/../x/"], "share link");
    expect(await decision).toBe("nothing-new");
    expect(allowlist.proposal()).toBeNull();
    expect(log.ofKind("note").map((n) => n.message)).toEqual([expect.stringContaining("not in normal form")]);
  });

  it("settled() waits for the operator's decision", async () => {
    const { allowlist } = setup();
    void allowlist.propose([ACME], "share link");
    let settled = false;
    const waiting = allowlist.settled().then(() => {
      settled = true;
    });
    await allowlist.ready;
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    await allowlist.decide(false);
    await waiting;
    expect(settled).toBe(true);
  });
});
