/** Sequence numbers live modulo 2^32 (RFC 9293 §3.4): `a + n`, wrapped. Differences: `seqDiff`. */
export const seqAdd = (a: number, n: number): number => (a + n) >>> 0;
