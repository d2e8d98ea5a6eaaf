/**
 * A two-way byte stream with backpressure: what a TCP connection, a TLS tunnel's plaintext
 * side and a Node socket adapter all look like to the code above them.
 */
export interface ByteStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
}
