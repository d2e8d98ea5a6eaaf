import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveLessonFolder } from "../../src/cli/lesson/serve";
import { createTestCa } from "./test-ca";

/**
 * A docs author's lesson host for one test (`tab lesson publish --serve`'s server): HTTPS with a certificate for a public-looking name
 * (`lessons.docs.test`), CORS on every answer, serving the given files. The browser reaches it
 * by Chromium's host-resolver rule and trusts exactly this certificate's key (its SPKI hash),
 * not every certificate: `chromiumArgs`.
 */
export interface LessonHost {
  /** `https://lessons.docs.test/` */
  origin: string;
  /** The loopback port it listens on (an engine without host-resolver rules reaches it through a proxy). */
  port: number;
  /** Every path asked for, in order. */
  requests: string[];
  chromiumArgs: string[];
  close(): Promise<void>;
}

export const LESSON_HOST = "lessons.docs.test";

export async function startLessonHost(files: Record<string, string>): Promise<LessonHost> {
  const ca = createTestCa();
  const leaf = ca.issue([LESSON_HOST]);
  // The folder served as `npx tab lesson publish DIR --serve PORT --cert … --key …` serves it.
  const dir = mkdtempSync(join(tmpdir(), "tab-lesson-host-"));
  for (const [path, body] of Object.entries(files)) writeFileSync(join(dir, path), body);
  const served = await serveLessonFolder({ dir, port: 0, tls: { cert: leaf.certPem, key: leaf.keyPem } });
  const port = served.port;
  const requests = served.requests;
  const spki = (pem: string) =>
    createHash("sha256")
      .update(new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" }))
      .digest("base64");
  return {
    origin: `https://${LESSON_HOST}/`,
    port,
    requests,
    chromiumArgs: [
      `--host-resolver-rules=MAP ${LESSON_HOST}:443 127.0.0.1:${port}`,
      `--ignore-certificate-errors-spki-list=${spki(leaf.certPem)}`,
    ],
    close: async () => {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A plain HTTP server for a docs page on another site (another loopback name than the playground's). */
export async function serveDocsPage(html: string): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { server, port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A plain docs page with `<linux-in-a-tab>`: the lesson, and the same lesson under a pin its
 * bytes do not have (id `mispinned`). `window.seen` collects the element's DOM events: the
 * lesson's messages and the mispinned one's refusal.
 */
export function customElementDocsPage(scriptUrl: string, lesson: string, mispinnedLesson: string): string {
  return `<!doctype html><title>plain docs</title>
    <script src="${scriptUrl}"></script>
    <script>
      window.seen = [];
      for (const type of ["lesson.loaded", "lesson.step-started", "lesson.step-passed", "page.storage-denied"])
        document.addEventListener(type, (e) => e.target.id !== "mispinned" && window.seen.push(type + (e.detail.step ? " " + e.detail.step : "")));
    </script>
    <p>A lesson:</p>
    <linux-in-a-tab lesson="${lesson}" step="1"></linux-in-a-tab>
    <p>The same lesson under a pin its bytes do not have:</p>
    <linux-in-a-tab id="mispinned" lesson="${mispinnedLesson}"></linux-in-a-tab>
    <script>
      document.getElementById("mispinned").addEventListener("lesson.refused", (e) => window.seen.push("lesson.refused " + e.detail.code));
    </script>`;
}
