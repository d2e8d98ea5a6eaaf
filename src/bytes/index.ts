export { fromBase64, toBase64 } from "./base64";
export { concatBytes, constantTimeEqual, decodeUtf8, decodeUtf8Strict, equalBytes, utf8 } from "./bytes";
export { type Sha256, sha256Hex, webSha256 } from "./digest";
export { fromHex, toHex } from "./hex";
export { type CappedInflate, inflateCapped } from "./inflate-capped";
export { type CappedRead, readCapped } from "./read-capped";
export { ByteReader, TruncatedError } from "./reader";
export type { ByteStream } from "./stream";
export { ByteWriter } from "./writer";
