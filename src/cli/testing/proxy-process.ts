import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";

/** `npx tab proxy` started for a test, as a user starts it, on a free port of 127.0.0.1. */
export interface RunningProxy {
  url: string;
  host: string;
  stdout: () => string;
  child: ChildProcess;
}

const root = join(import.meta.dirname, "..", "..", "..");

export async function startProxy(args: string[]): Promise<RunningProxy> {
  const child = spawn(process.execPath, [join(root, "bin", "tab.mjs"), "proxy", "--port", "0", "--host", "127.0.0.1", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
      const match = /tab proxy listening on (http:\/\/127\.0\.0\.1:\d+) \(policy sha256 [0-9a-f]{64}\)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`tab proxy exited ${code}: ${stderr}`)));
  });
  return { url, host: new URL(url).host, stdout: () => stdout, child };
}

/** Sends `request` on a raw socket and collects what the proxy sends until it closes the connection. */
export async function untilClosed(proxy: string, request: string): Promise<string> {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on("data", (d: Buffer) => {
      received += d.toString("latin1");
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
    // A guard against a hang, not a measurement: the outcome is what was received.
    socket.setTimeout(20_000, () => socket.destroy(new Error(`the proxy did not close the connection; got ${JSON.stringify(received)}`)));
  });
}
