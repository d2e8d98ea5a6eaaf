/** A host name as compared and certified: lower case, one trailing dot dropped. */
export function normalizeHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** True for a DNS name a leaf certificate can carry in its SAN (letters, digits, hyphen, underscore). */
export function isCertifiableHost(host: string): boolean {
  const name = normalizeHost(host);
  return name.length > 0 && name.length <= 253 && name.split(".").every((label) => LABEL.test(label));
}
