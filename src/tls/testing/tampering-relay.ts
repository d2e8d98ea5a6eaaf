import { createServer, connect as netConnect, type Server } from "node:net";

export interface TamperingRelay {
  port: number;
  close(): Promise<void>;
}

/**
 * A TCP relay on 127.0.0.1 in front of `targetPort`, a middlebox for tests: every chunk the
 * client sends passes through `edit` (which may change it in place) before it goes on; the
 * server's answers pass unchanged.
 */
export async function startTamperingRelay(targetPort: number, edit: (chunk: Buffer, index: number) => void): Promise<TamperingRelay> {
  const relay: Server = createServer((inbound) => {
    const outbound = netConnect(targetPort, "127.0.0.1");
    let index = 0;
    inbound.on("data", (chunk: Buffer) => {
      edit(chunk, index++);
      outbound.write(chunk);
    });
    outbound.pipe(inbound);
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
    inbound.on("error", () => undefined);
    outbound.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  return {
    port: (relay.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}
