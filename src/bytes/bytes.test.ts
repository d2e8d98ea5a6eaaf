import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter, concatBytes, fromBase64, fromHex, sha256Hex, TruncatedError, toBase64, toHex, utf8 } from "./index";

describe("byte helpers", () => {
  it("hex round-trips and refuses odd or non-hex input", () => {
    expect(toHex(fromHex("00ff10"))).toBe("00ff10");
    expect(() => fromHex("abc")).toThrow(/not hex/);
    expect(() => fromHex("zz")).toThrow(/not hex/);
  });

  it.each([
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foobar", "Zm9vYmFy"],
  ])("base64 of %j is %j (RFC 4648 §10 test vectors)", (plain, encoded) => {
    expect(toBase64(utf8(plain))).toBe(encoded);
    expect(new TextDecoder().decode(fromBase64(encoded))).toBe(plain);
  });

  it("base64 refuses characters outside the alphabet", () => {
    expect(() => fromBase64("Zm9v!")).toThrow(/invalid base64/);
  });

  it("sha256 of 'abc' is the FIPS 180-2 test vector", async () => {
    expect(await sha256Hex(utf8("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("a length prefix is patched when the nested part ends", () => {
    const w = new ByteWriter(1);
    w.u8(0x16);
    const end = w.lengthPrefix(2);
    w.bytes(utf8("hello"));
    end();
    expect(toHex(w.finish())).toBe(`160005${toHex(utf8("hello"))}`);
  });

  it("a nested part too long for its prefix is an error, not a wrapped length", () => {
    const w = new ByteWriter();
    const end = w.lengthPrefix(1);
    w.bytes(new Uint8Array(256));
    expect(() => end()).toThrow(RangeError);
  });

  it("the reader throws TruncatedError past the end", () => {
    const r = new ByteReader(concatBytes(fromHex("0003"), utf8("ab")));
    expect(() => r.prefixed(2)).toThrow(TruncatedError);
  });
});
