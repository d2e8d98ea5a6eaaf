import { createServer, type Server, type Socket } from "node:net";
import type { ByteStream } from "../../bytes";
import type { EventLog } from "../../log";
import { type ConnectTarget, createTlsTerminator, type SessionCa, type TlsTerminatorOptions } from "../index";
import { socketByteStream } from "./socket-stream";

export interface TestTlsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Our TLS server on a real node:net socket on 127.0.0.1, as if each connection were a
 * CONNECT to `connectHost` already answered 200. `serve` gets the plaintext stream.
 */
export async function startTlsTestServer(options: {
  ca: SessionCa;
  log: EventLog;
  /** The CONNECT host of each connection; a function lets one terminator (one ticket store) serve several. */
  connectHost: string | (() => string);
  /** Sees each accepted socket before the terminator reads it (e.g. to record the ClientHello). */
  onSocket?: (socket: Socket) => void;
  serve: (plain: ByteStream, connect: ConnectTarget) => Promise<void>;
  terminator?: Partial<TlsTerminatorOptions>;
}): Promise<TestTlsServer> {
  const terminator = createTlsTerminator({ ca: options.ca, log: options.log, ...options.terminator });
  let next = 0;
  const sockets = new Set<Socket>();
  // allowHalfOpen: a client's FIN ends only its direction; the reply (and close_notify) still goes out.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.setNoDelay(true);
    const id = `t${next++}`;
    options.onSocket?.(socket);
    const host = typeof options.connectHost === "string" ? options.connectHost : options.connectHost();
    const connect = { host, port: 443, id };
    void terminator.terminate(socketByteStream(socket), connect).then((plain) => {
      if (plain) return options.serve(plain, connect).catch(() => undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** The plaintext echoed back until the client closes; then close_notify. */
export async function echo(plain: ByteStream): Promise<void> {
  await plain.readable.pipeTo(plain.writable);
}
