import { describe, expect, it } from "vitest";
import { dnsResponseFor, parseDnsQuery, serializeDnsResponse } from "./dns";
import { MalformedFrame } from "./malformed";

/** A query for example.com type AAAA with an EDNS OPT record, as glibc sends it. */
// biome-ignore format: one line per field
const query = Uint8Array.of(
  0x12, 0x34, //       id 0x1234
  0x01, 0x20, //       flags: RD, AD
  0x00, 0x01, //       qdcount 1
  0x00, 0x00, //       ancount 0
  0x00, 0x00, //       nscount 0
  0x00, 0x01, //       arcount 1 (ignored)
  0x07, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, // label "example"
  0x03, 0x63, 0x6f, 0x6d, // label "com"
  0x00, //             root
  0x00, 0x1c, //       qtype AAAA
  0x00, 0x01, //       qclass IN
  0x00, 0x00, 0x29, 0x04, 0xd0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // OPT record
);

describe("DNS messages (the DNS server logs every query and answers per policy)", () => {
  it("parses the header and question", () => {
    expect(parseDnsQuery(query)).toMatchObject({
      id: 0x1234,
      opcode: 0,
      recursionDesired: true,
      questions: [{ name: "example.com", type: 28, class: 1 }],
    });
  });

  it("serializes a REFUSED response that echoes the question byte for byte", () => {
    const response = serializeDnsResponse(dnsResponseFor(parseDnsQuery(query), { rcode: "refused" }));
    // biome-ignore format: one line per field
    const header = [
      0x12, 0x34, // id
      0x81, 0x05, // QR, RD, rcode 5
      0x00, 0x01, // one question
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // no records
    ];
    expect(Array.from(response.subarray(0, 12))).toEqual(header);
    expect(Array.from(response.subarray(12))).toEqual(Array.from(query.subarray(12, 29)));
  });

  it("follows a compression pointer and shows unprintable bytes escaped", () => {
    const pointed = Uint8Array.of(0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 18, 0, 1, 0, 1, 2, 0x61, 0x00, 0); // question name: pointer to offset 18, where label "a\\0" sits
    expect(parseDnsQuery(pointed).questions[0]?.name).toBe("a\\000");
  });

  it.each([
    ["a compression loop", Uint8Array.of(0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1), /loop/],
    ["a truncated question", query.subarray(0, 20), /truncated/],
    ["a response instead of a query", Uint8Array.of(0, 1, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0), /response/],
  ])("refuses %s", (_name, bytes, reason) => {
    expect(() => parseDnsQuery(bytes)).toThrow(MalformedFrame);
    expect(() => parseDnsQuery(bytes)).toThrow(reason);
  });
});
