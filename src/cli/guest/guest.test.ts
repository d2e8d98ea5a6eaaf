import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventLog, type LogEvent } from "../../log";
import { runGuestCheck, winsizeRequest } from "../../machine";
import { createPolicyHolder, DEFAULT_POLICY } from "../../policy";
import { createGuestUpstream, type NodeGuest, startNodeGuest } from ".";
import { takeGuestLock } from "./testing/guest-lock";

// Boots the real guest (the shipped state, in v86 under Node) once for the file, under the
// machine-wide guest lock.
const GUEST_TEST_TIMEOUT_MS = 600_000;

const decisions = (events: readonly LogEvent[]) =>
  events.flatMap((e) => (e.kind === "proxy.decision" ? [{ code: e.code, target: e.target }] : []));

describe("the shipped guest under Node, on the page's peer and proxy", { timeout: GUEST_TEST_TIMEOUT_MS }, () => {
  let lock: { release(): void };
  let guest: NodeGuest;
  let recordings: string;
  let local: Server;
  let localUrl = "";
  const log = createEventLog();
  const policy = createPolicyHolder(DEFAULT_POLICY, log);
  let upstreamChoice: "recordings" | "local" = "recordings";
  const seenByLocal: string[] = [];

  beforeAll(async () => {
    recordings = await mkdtemp(join(tmpdir(), "tab-guest-rec-"));
    await mkdir(join(recordings, "api.github.com"), { recursive: true });
    await writeFile(join(recordings, "api.github.com/zen"), "Keep it logically awesome.\n");
    local = createServer((req, res) => {
      seenByLocal.push(`${req.headers["x-tab-upstream"]}${req.url}`);
      res.end("from the local server\n");
    });
    await new Promise<void>((r) => local.listen(0, "127.0.0.1", () => r()));
    const address = local.address();
    localUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    const fromRecordings = createGuestUpstream({ kind: "recordings", dirs: [recordings] }, policy);
    const toLocal = createGuestUpstream({ kind: "local", url: localUrl }, policy);
    const pick = () => (upstreamChoice === "local" ? toLocal : fromRecordings);
    lock = await takeGuestLock();
    guest = await startNodeGuest({
      log,
      policy,
      upstream: { describe: "test", upstreamPath: () => "direct", fetch: (url, init) => pick().fetch(url, init) },
    });
  }, GUEST_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await guest?.destroy();
    lock?.release();
    local?.close();
    await rm(recordings, { recursive: true, force: true });
  });

  it("restores the shipped state and makes it fresh: the guest's clock is this host's", async () => {
    expect(log.ofKind("boot.progress").map((e) => e.phase)).toContain("fresh");
    const run = await guest.run("date +%s", { timeoutMs: 60_000 });
    expect(run.status).toBe(0);
    expect(Math.abs(Number(run.output.trim()) - Date.now() / 1000)).toBeLessThan(300);
  });

  it("the guest's control line refuses a malformed request with its reason, and a winsize after it reaches the shell", async () => {
    await expect(guest.control.request("winsize 0 80")).rejects.toThrow(
      "the guest refused winsize: winsize is not ROWS COLS (1 to 9999 each)",
    );
    await expect(guest.control.request("fresh 1 2 not-hex")).rejects.toThrow(
      "the guest refused fresh: fresh is not SECONDS NANOSECONDS HEX",
    );
    await expect(guest.control.request("fresh 1 2 00")).rejects.toThrow("the seed is not 16 to 256 bytes in hex");
    await expect(guest.control.request("reboot")).rejects.toThrow("the guest refused reboot: unknown request");
    await guest.control.request(winsizeRequest(33, 111));
    const run = await guest.run("stty size", { timeoutMs: 60_000 });
    expect(run.output.trim()).toBe("33 111");
    await guest.control.request(winsizeRequest(50, 200));
  });

  it("runs a lesson's check out of band: its status and output come on the control line, nothing reaches the console", async () => {
    const printed: string[] = [];
    const stop = guest.console.onLine((line) => printed.push(line));
    const found = await runGuestCheck(guest.control, { command: "echo checked; test -d /tmp", as: "root", timeoutMs: 10_000 });
    expect(found).toEqual({ status: 0, timedOut: false, output: "checked\n" });
    expect(await runGuestCheck(guest.control, { command: "exit 3", as: "root", timeoutMs: 10_000 })).toMatchObject({ status: 3 });
    // As the learner: the console shell's working directory (root's home at the prompt).
    await guest.run("cd /tmp", { timeoutMs: 60_000 });
    expect(await runGuestCheck(guest.control, { command: "pwd; id -u", as: "learner", timeoutMs: 10_000 })).toMatchObject({
      status: 0,
      output: "/tmp\n0\n",
    });
    await guest.run("cd", { timeoutMs: 60_000 });
    // Past its time limit the whole group is killed, what it left running too.
    const slow = await runGuestCheck(guest.control, { command: "sleep 30 & sleep 30", as: "root", timeoutMs: 1_000 });
    expect(slow).toEqual({ status: null, timedOut: true, output: "" });
    const left = await runGuestCheck(guest.control, { command: "pidof sleep || true", as: "root", timeoutMs: 10_000 });
    expect(left.output).toBe("");
    stop();
    expect(printed.join("\n")).not.toContain("checked");
  });

  it("gives a command its status and output from the shell's marks", async () => {
    const run = await guest.run("echo state-$((6*7)); false", { timeoutMs: 60_000 });
    expect(run.output).toBe("state-42\n");
    expect(run.status).toBe(1);
    expect(run.interrupted).toBe(false);
  });

  it("puts the proxy's refusal of a host the policy does not allow in that command's window", async () => {
    const run = await guest.run("curl -sS https://pastebin.com/api", { timeoutMs: 60_000 });
    expect(run.status).not.toBe(0);
    expect(decisions(run.events)).toContainEqual({ code: "host-not-allowed", target: expect.stringContaining("pastebin.com") });
  });

  it("answers an allowed HTTPS request from the recordings, through the TLS terminator and the guest's trust of the CA in its share", async () => {
    const run = await guest.run("curl -sS https://api.github.com/zen", { timeoutMs: 60_000 });
    expect(run.output).toBe("Keep it logically awesome.\n");
    expect(run.status).toBe(0);
    expect(run.events.some((e) => e.kind === "tls.session")).toBe(true);
  });

  it("trusts no certificate without the page's CA: a new TLS connection fails for want of a CA file, and the image has no bundle to fall back to", async () => {
    // What /init leaves when there is no page CA: no CA file at all (guest/README.md, "TLS trust").
    // The real curl, without the command's TLS session file: a resumed session needs no CA.
    const run = await guest.run(
      "mv /etc/ssl/certs/ca-certificates.crt /tmp/ca-link; /usr/libexec/curl -sS https://api.github.com/zen; echo rc=$?; ls -A /etc/ssl/certs | wc -l; mv /tmp/ca-link /etc/ssl/certs/ca-certificates.crt",
      { timeoutMs: 60_000 },
    );
    expect(run.output).toMatch(/error setting certificate verify locations: CAfile: \/etc\/ssl\/certs\/ca-certificates\.crt/);
    expect(run.output).toMatch(/rc=77\n0\n$/);
    const after = await guest.run("curl -sS https://api.github.com/zen", { timeoutMs: 60_000 });
    expect(after.output).toBe("Keep it logically awesome.\n");
  });

  it("answers 404 for an allowed URL the recordings do not hold", async () => {
    const run = await guest.run("curl -sS -o /dev/null -w '%{http_code}' https://raw.githubusercontent.com/nothing/here", {
      timeoutMs: 60_000,
    });
    expect(run.output).toBe("404");
  });

  it("sends an allowed request to the local server given as the upstream, naming the original host", async () => {
    upstreamChoice = "local";
    const run = await guest.run("curl -sS https://api.github.com/zen?x=1", { timeoutMs: 60_000 });
    upstreamChoice = "recordings";
    expect(run.output).toBe("from the local server\n");
    expect(seenByLocal).toContain("api.github.com/zen?x=1");
  });

  it("appends the guest's report lines to the log: a kernel result in the command's window", async () => {
    const run = await guest.run("tcpconnect 10.0.2.2 80", { timeoutMs: 60_000 });
    expect(run.events.some((e) => e.kind === "kernel.result" && e.program === "tcpconnect" && e.target === "10.0.2.2:80")).toBe(true);
  });

  it("interrupts a command that runs past its time (Ctrl+C) and says it timed out", async () => {
    const run = await guest.run("sleep 600", { timeoutMs: 2_000 });
    expect(run.timedOut).toBe(true);
    expect(run.interrupted).toBe(true);
    const after = await guest.run("echo still-here", { timeoutMs: 60_000 });
    expect(after.output).toBe("still-here\n");
  });
});
