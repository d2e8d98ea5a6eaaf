import { describe, expect, it } from "vitest";
import { messageOf } from "./message-of";

describe("messageOf", () => {
  it("says an Error's message, and anything else thrown as text", () => {
    expect(messageOf(new TypeError("bad input"))).toBe("bad input");
    expect(messageOf("a string thrown")).toBe("a string thrown");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(undefined)).toBe("undefined");
  });
});
