/** Why a frame was not used: a parser throws this; the peer counts it and logs `wire.malformed`. */
export class MalformedFrame extends Error {
  constructor(
    readonly reason: string,
    readonly code: "malformed-frame" | "fragment-refused" = "malformed-frame",
  ) {
    super(reason);
    this.name = "MalformedFrame";
  }
}

/** Throws a MalformedFrame unless `length` bytes are available: the common truncation check. */
export function need(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length < length) throw new MalformedFrame(`truncated ${what}: ${bytes.length} of ${length} bytes`);
}
