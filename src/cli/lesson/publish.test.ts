import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPublishBase, publishLesson } from "./publish-plan";
import { serveLessonFolder } from "./serve";

const TOUR = readFileSync("lessons/01-tour.yaml", "utf8");

describe("tab lesson publish", () => {
  it.each([
    ["http://docs.example/lessons/", "is not https"],
    ["https://203.0.113.7/lessons/", "names an IP address"],
    ["https://localhost/lessons/", "loopback name"],
    ["https://docs/lessons/", "single-label"],
    ["not a url", "is not a URL"],
  ])("refuses the base %s, saying which hosting requirement it misses", (base, said) => {
    const checked = checkPublishBase(base);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toContain(said);
  });

  it("takes an https host name, a folder, adding the final slash", () => {
    expect(checkPublishBase("https://docs.example/lessons")).toEqual({ ok: true, base: "https://docs.example/lessons/" });
  });

  it("writes each lesson's pinned URL, its link and an embed snippet with allow and embedder", async () => {
    const planned = await publishLesson("tour.yaml", TOUR, {
      base: "https://docs.example/lessons/",
      playground: "https://play.example/tab/",
      embedder: "https://docs.example",
    });
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    const pin = createHash("sha256").update(TOUR).digest("hex");
    expect(planned.lesson.pinnedUrl).toBe(`https://docs.example/lessons/tour.yaml#sha256=${pin}`);
    expect(new URL(planned.lesson.link).searchParams.get("lesson")).toBe(planned.lesson.pinnedUrl);
    expect(planned.lesson.embed).toContain('allow="loopback-network"');
    expect(planned.lesson.embed).toContain("embedder=https%3A%2F%2Fdocs.example");
    expect(planned.lesson.embed).toContain("embed=1");
    expect(planned.lesson.embed).toContain('width="800" height="500"');
  });

  it("refuses to publish an invalid lesson, naming its first issue", async () => {
    const planned = await publishLesson("bad.yaml", "title: 3\n", {
      base: "https://docs.example/",
      playground: "https://p.example/",
      embedder: null,
    });
    expect(planned.ok).toBe(false);
    if (!planned.ok) expect(planned.reason).toMatch(/^bad\.yaml:\d+:\d+ /);
  });

  it("--serve answers lessons with CORS, and nothing outside the folder or of another kind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tab-publish-"));
    writeFileSync(join(dir, "tour.yaml"), TOUR);
    writeFileSync(join(dir, "secret.key"), "no");
    const server = await serveLessonFolder({ dir, port: 0 });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const ok = await fetch(`${base}/tour.yaml`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("access-control-allow-origin")).toBe("*");
      expect(await ok.text()).toBe(TOUR);
      expect((await fetch(`${base}/secret.key`)).status).toBe(404);
      expect((await fetch(`${base}/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
      expect((await fetch(`${base}/tour.yaml`, { method: "OPTIONS" })).headers.get("access-control-allow-origin")).toBe("*");
    } finally {
      await server.close();
    }
  });
});
