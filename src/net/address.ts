/** IPv4 addresses are held as unsigned 32-bit numbers inside src/net; strings only at the edges. */
export type Ipv4Address = number;

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function parseIpv4Address(text: string): Ipv4Address {
  const m = DOTTED_QUAD.exec(text);
  if (!m) throw new RangeError(`not a dotted-quad IPv4 address: ${text}`);
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const part = Number(m[i]);
    if (part > 255) throw new RangeError(`not a dotted-quad IPv4 address: ${text}`);
    value = value * 256 + part;
  }
  return value;
}

export function formatIpv4Address(address: Ipv4Address): string {
  return `${address >>> 24}.${(address >>> 16) & 0xff}.${(address >>> 8) & 0xff}.${address & 0xff}`;
}

const MAC = /^([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})$/i;

export function parseMacAddress(text: string): Uint8Array {
  const m = MAC.exec(text);
  if (!m) throw new RangeError(`not a MAC address: ${text}`);
  return Uint8Array.from(m.slice(1), (h) => Number.parseInt(h, 16));
}

export function formatMacAddress(bytes: Uint8Array, offset = 0): string {
  const parts: string[] = [];
  for (let i = 0; i < 6; i++) parts.push((bytes[offset + i] ?? 0).toString(16).padStart(2, "0"));
  return parts.join(":");
}

export const BROADCAST_MAC: Uint8Array = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

export function sameMac(a: Uint8Array, aOffset: number, b: Uint8Array): boolean {
  for (let i = 0; i < 6; i++) if (a[aOffset + i] !== b[i]) return false;
  return true;
}
