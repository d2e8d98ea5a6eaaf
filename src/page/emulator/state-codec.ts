/**
 * How a saved guest state is kept in IndexedDB: gzip through the browser's own
 * CompressionStream behind a 4-byte tag, so a returning visitor's browser holds a fraction of
 * the raw state (mostly zero pages). A value without the tag is an uncompressed state from an
 * earlier version of the page and is still restored as it is.
 */
const TAG = [0x54, 0x41, 0x42, 0x5a]; // "TABZ"

async function through(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<ArrayBuffer> {
  const body = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Response(body).arrayBuffer();
}

function tagged(bytes: Uint8Array): boolean {
  return bytes.length >= TAG.length && TAG.every((b, i) => bytes[i] === b);
}

export async function packState(state: ArrayBuffer): Promise<ArrayBuffer> {
  const gz = new Uint8Array(await through(new Uint8Array(state), new CompressionStream("gzip")));
  const out = new Uint8Array(TAG.length + gz.length);
  out.set(TAG);
  out.set(gz, TAG.length);
  return out.buffer;
}

/** The raw state v86 restores; throws when a tagged value does not decompress (a damaged entry). */
export async function unpackState(stored: ArrayBuffer): Promise<ArrayBuffer> {
  const bytes = new Uint8Array(stored);
  if (!tagged(bytes)) return stored;
  return through(bytes.subarray(TAG.length), new DecompressionStream("gzip"));
}
