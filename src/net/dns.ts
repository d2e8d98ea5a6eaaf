import { ByteReader, ByteWriter, TruncatedError } from "../bytes";
import { formatIpv4Address, parseIpv4Address } from "./address";
import { MalformedFrame } from "./malformed";

/** One question of a DNS message (RFC 1035 §4.1.2). */
export interface DnsQuestion {
  /** The name for people: labels joined by dots, unprintable bytes escaped as \DDD. */
  name: string;
  /** The labels as sent, so a response echoes the question byte for byte. */
  labels?: Uint8Array[];
  type: number;
  class: number;
}

/** The parts of a query the peer uses: header fields and questions (other sections ignored). */
export interface DnsQuery {
  id: number;
  opcode: number;
  recursionDesired: boolean;
  questions: DnsQuestion[];
}

export interface DnsRecord {
  name: string;
  labels?: Uint8Array[];
  type: number;
  ttl: number;
  data: Uint8Array;
}

export interface DnsResponse {
  id: number;
  opcode: number;
  recursionDesired: boolean;
  rcode: number;
  questions: DnsQuestion[];
  answers: DnsRecord[];
}

export const DNS_TYPE_A = 1;
export const DNS_CLASS_IN = 1;
export const DNS_RCODE = { noerror: 0, formerr: 1, servfail: 2, nxdomain: 3, notimp: 4, refused: 5 } as const;
export type DnsRcodeName = keyof typeof DNS_RCODE;

const TYPE_NAMES: Record<number, string> = {
  1: "A",
  2: "NS",
  5: "CNAME",
  6: "SOA",
  12: "PTR",
  15: "MX",
  16: "TXT",
  28: "AAAA",
  33: "SRV",
  65: "HTTPS",
  255: "ANY",
};

export const dnsTypeName = (type: number): string => TYPE_NAMES[type] ?? `TYPE${type}`;

/** Parses a query: header and question section. Throws MalformedFrame on anything unreadable. */
export function parseDnsQuery(bytes: Uint8Array): DnsQuery {
  try {
    const reader = new ByteReader(bytes);
    const id = reader.u16("DNS id");
    const flags = reader.u16("DNS flags");
    if (flags & 0x8000) throw new MalformedFrame("DNS message is a response, not a query");
    const questionCount = reader.u16("DNS qdcount");
    reader.take(6, "DNS counts");
    const questions: DnsQuestion[] = [];
    for (let i = 0; i < questionCount; i++) {
      const labels = readName(bytes, reader);
      questions.push({ name: displayName(labels), labels, type: reader.u16("DNS qtype"), class: reader.u16("DNS qclass") });
    }
    return { id, opcode: (flags >>> 11) & 0x0f, recursionDesired: (flags & 0x0100) !== 0, questions };
  } catch (error) {
    if (error instanceof TruncatedError) throw new MalformedFrame(`DNS ${error.message}`);
    throw error;
  }
}

/** Reads a domain name, following compression pointers (RFC 1035 §4.1.4) with a loop guard. */
function readName(message: Uint8Array, reader: ByteReader): Uint8Array[] {
  const labels: Uint8Array[] = [];
  let cursor = reader;
  let jumps = 0;
  let length = 0;
  for (;;) {
    const size = cursor.u8("DNS label length");
    if (size === 0) break;
    if ((size & 0xc0) === 0xc0) {
      const target = ((size & 0x3f) << 8) | cursor.u8("DNS pointer");
      if (++jumps > 16 || target >= message.length) throw new MalformedFrame("DNS name compression loop or bad pointer");
      cursor = new ByteReader(message);
      cursor.offset = target;
      continue;
    }
    if (size > 63) throw new MalformedFrame(`DNS label of length ${size}`);
    const label = cursor.take(size, "DNS label");
    length += size + 1;
    if (length > 255) throw new MalformedFrame("DNS name longer than 255 bytes");
    labels.push(label);
  }
  return labels;
}

/** Labels are shown to people: printable ASCII stays, anything else is escaped as \DDD. */
function displayName(labels: Uint8Array[]): string {
  const printable = (b: number): string =>
    b > 0x20 && b < 0x7f && b !== 0x2e && b !== 0x5c ? String.fromCharCode(b) : `\\${b.toString().padStart(3, "0")}`;
  return labels.map((label) => Array.from(label, printable).join("")).join(".");
}

function writeName(writer: ByteWriter, name: string, labels?: Uint8Array[]): void {
  if (labels) {
    for (const label of labels) writer.u8(label.length).bytes(label);
    writer.u8(0);
    return;
  }
  for (const label of name.split(".")) {
    if (label.length === 0) continue;
    const bytes = new TextEncoder().encode(label);
    if (bytes.length > 63) throw new RangeError(`DNS label too long: ${label}`);
    writer.u8(bytes.length).bytes(bytes);
  }
  writer.u8(0);
}

export function serializeDnsResponse(response: DnsResponse): Uint8Array {
  const writer = new ByteWriter(128);
  writer.u16(response.id);
  // QR=1, opcode echoed, RD echoed, RA=0 (the peer recurses only if a policy does it for it).
  writer.u16(0x8000 | ((response.opcode & 0x0f) << 11) | (response.recursionDesired ? 0x0100 : 0) | (response.rcode & 0x0f));
  writer.u16(response.questions.length).u16(response.answers.length).u16(0).u16(0);
  for (const q of response.questions) {
    writeName(writer, q.name, q.labels);
    writer.u16(q.type).u16(q.class);
  }
  for (const a of response.answers) {
    writeName(writer, a.name, a.labels);
    writer.u16(a.type).u16(DNS_CLASS_IN).u32(a.ttl);
    const end = writer.lengthPrefix(2);
    writer.bytes(a.data);
    end();
  }
  return writer.finish();
}

/** What a DNS policy is asked: one question, with its type by name. */
export interface DnsLookup {
  name: string;
  type: string;
  typeCode: number;
}

/** A policy's answer: an rcode, and for `noerror` the IPv4 addresses to answer an A query with. */
export interface DnsAnswer {
  rcode: DnsRcodeName;
  addresses?: string[];
  ttl?: number;
}

/** Decides how the peer answers a query; may be async (a later mode resolves through .net). */
export type DnsPolicy = (lookup: DnsLookup) => DnsAnswer | Promise<DnsAnswer>;

/** The default: every query is seen and logged, and nothing resolves (REFUSED, rcode 5). */
export const refuseAllDns: DnsPolicy = () => ({ rcode: "refused" });

/** Builds the response for a query from a policy's answer. */
export function dnsResponseFor(query: DnsQuery, answer: DnsAnswer): DnsResponse {
  const question = query.questions[0];
  const answers: DnsRecord[] = [];
  if (answer.rcode === "noerror" && question && question.type === DNS_TYPE_A) {
    for (const address of answer.addresses ?? []) {
      const value = parseIpv4Address(address);
      const data = new Uint8Array([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
      answers.push({
        name: question.name,
        ...(question.labels ? { labels: question.labels } : {}),
        type: DNS_TYPE_A,
        ttl: answer.ttl ?? 60,
        data,
      });
    }
  }
  return {
    id: query.id,
    opcode: query.opcode,
    recursionDesired: query.recursionDesired,
    rcode: DNS_RCODE[answer.rcode],
    questions: query.questions,
    answers,
  };
}

/** "REFUSED", or "NOERROR A 1.2.3.4" — the answer as the Wire panel shows it. */
export function describeDnsAnswer(response: DnsResponse): string {
  const rcode = Object.entries(DNS_RCODE).find(([, code]) => code === response.rcode)?.[0] ?? `RCODE${response.rcode}`;
  const records = response.answers.map(
    (a) =>
      `${dnsTypeName(a.type)} ${a.data.length === 4 ? formatIpv4Address(new DataView(a.data.buffer, a.data.byteOffset).getUint32(0)) : "…"}`,
  );
  return [rcode.toUpperCase(), ...records].join(" ");
}
