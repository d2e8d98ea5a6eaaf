/**
 * The Internet checksum (RFC 1071) over 32-bit big-endian reads: a one's-complement sum is
 * independent of how the words are grouped, so 32-bit reads folded at the end give the same
 * result as 16-bit ones with half the loop iterations. This is the only per-byte-ish loop in
 * the hot path. The running sum stays an exact double (< 2^53) for any IPv4-sized input.
 */
export function onesComplementSum(bytes: Uint8Array, offset: number, length: number, initial = 0): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let sum = initial;
  let i = offset;
  const end4 = offset + length - (length & 3);
  for (; i < end4; i += 4) sum += view.getUint32(i);
  if (length & 2) {
    sum += view.getUint16(i);
    i += 2;
  }
  if (length & 1) sum += bytes[i]! << 8;
  return sum;
}

/** Folds a running sum to 16 bits (end-around carry) and complements it: the checksum field. */
export function finishChecksum(sum: number): number {
  // 2^16 ≡ 1 (mod 2^16 - 1), so adding the high part to the low part keeps the residue.
  while (sum > 0xffff) sum = (sum % 0x10000) + Math.floor(sum / 0x10000);
  return ~sum & 0xffff;
}

/** The Internet checksum of a byte range: 0 when the range already carries a correct checksum. */
export function internetChecksum(bytes: Uint8Array, offset = 0, length = bytes.length - offset, initial = 0): number {
  return finishChecksum(onesComplementSum(bytes, offset, length, initial));
}

/** The IPv4 pseudo-header's contribution to a TCP or UDP checksum (RFC 793 §3.1, RFC 768). */
export function pseudoHeaderSum(src: number, dst: number, protocol: number, length: number): number {
  return (src >>> 16) + (src & 0xffff) + (dst >>> 16) + (dst & 0xffff) + protocol + length;
}
