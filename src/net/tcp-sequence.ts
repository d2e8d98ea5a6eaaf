/** Sequence numbers live modulo 2^32 (RFC 9293 §3.4): `a + n`, wrapped. */
export const seqAdd = (a: number, n: number): number => (a + n) >>> 0;

/** How far `a` is past `b` modulo 2^32, as a signed 32-bit number: negative when `a` is before `b`. */
export const seqDiff = (a: number, b: number): number => (a - b) | 0;
