import * as tls from "node:tls";

/** What a node:tls client saw: the negotiated session (null if the handshake never completed), the data, the error. */
export interface NodeClientRun {
  session: {
    authorized: boolean;
    protocol: string | null;
    cipher: string;
    alpn: string | false | null;
    /** OpenSSL's name of the key exchange group: "X25519", "prime256v1", … */
    keyExchange: string | undefined;
    peerFingerprint: string;
  } | null;
  received: Buffer;
  /** The last session ticket the server sent (node:tls 'session'), to resume with; null if none. */
  ticket: Buffer | null;
  /** Whether the session was resumed from the `session` passed in. */
  reused: boolean;
  error: (Error & { code?: string }) | null;
}

/**
 * Connects with node:tls to 127.0.0.1:`port`, trusting `options.ca` and naming
 * `options.servername`, offers http/1.1 unless told otherwise, sends `send` after the
 * handshake, half-closes, and collects everything until close.
 */
export function nodeClient(
  port: number,
  options: Omit<tls.ConnectionOptions, "ca" | "servername"> & { ca: string; servername: string },
  send: Buffer,
): Promise<NodeClientRun> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let session: NodeClientRun["session"] = null;
    let error: NodeClientRun["error"] = null;
    let ticket: Buffer | null = null;
    let reused = false;
    const socket = tls.connect({ port, host: "127.0.0.1", ALPNProtocols: ["http/1.1"], ...options });
    socket.on("secureConnect", () => {
      session = {
        authorized: socket.authorized,
        protocol: socket.getProtocol(),
        cipher: socket.getCipher().name,
        alpn: socket.alpnProtocol,
        keyExchange: (socket.getEphemeralKeyInfo() as { name?: string } | null)?.name,
        peerFingerprint: socket.getPeerX509Certificate()?.fingerprint256.replaceAll(":", "").toLowerCase() ?? "",
      };
      reused = socket.isSessionReused();
      socket.end(send);
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("session", (t: Buffer) => {
      ticket = t;
    });
    socket.on("error", (e) => {
      error = e;
    });
    socket.on("close", () => resolve({ session, received: Buffer.concat(chunks), ticket, reused, error }));
  });
}
