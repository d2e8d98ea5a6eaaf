import { spawn } from "node:child_process";

/**
 * The machine-wide lock every run that boots the guest takes (e2e, benchmarks, these tests):
 * v86 is heavy, so two guests never run at once. Held by a `flock` child until `release`.
 */
export const GUEST_LOCK = "/tmp/tab-e2e.lock";

export async function takeGuestLock(): Promise<{ release(): void }> {
  const child = spawn("flock", [GUEST_LOCK, "sh", "-c", "echo locked; exec cat"], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`flock ${GUEST_LOCK} exited ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("locked")) resolve();
    });
  });
  child.removeAllListeners("exit");
  return {
    release() {
      child.stdin.end();
    },
  };
}
