import { concatBytes } from "../bytes";

/** A minimal unsigned DER INTEGER: no superfluous leading zeros, a 0x00 before a high bit. */
function derInteger(value: Uint8Array): Uint8Array {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const trimmed = value.subarray(start);
  const body = trimmed[0]! & 0x80 ? concatBytes(Uint8Array.of(0), trimmed) : trimmed;
  return concatBytes(Uint8Array.of(0x02, body.length), body);
}

/**
 * WebCrypto returns ECDSA signatures as IEEE P1363 r||s; TLS carries them as the DER
 * `SEQUENCE { INTEGER r, INTEGER s }` of RFC 8446 §4.2.3 (ANSI X9.62).
 */
export function p1363ToDer(signature: Uint8Array): Uint8Array {
  if (signature.length === 0 || signature.length % 2 !== 0 || signature.length > 132)
    throw new RangeError(`a P1363 signature of ${signature.length} bytes`);
  const half = signature.length / 2;
  const body = concatBytes(derInteger(signature.subarray(0, half)), derInteger(signature.subarray(half)));
  const length = body.length < 0x80 ? Uint8Array.of(body.length) : Uint8Array.of(0x81, body.length);
  return concatBytes(Uint8Array.of(0x30), length, body);
}
