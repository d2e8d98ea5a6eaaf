import { describe, expect, it } from "vitest";
import { createHeldLink } from "./held-link";

const frame = (n: number) => Uint8Array.of(n);
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the guest's NIC before the page's network listens", () => {
  it("keeps what the guest sent until the network listens, and hands it over in order, then what follows", async () => {
    const held = createHeldLink(() => undefined);
    held.receive(frame(1));
    held.receive(frame(2));
    const got: number[] = [];
    held.link.onFrame((f) => got.push(f[0]!));
    held.receive(frame(3));
    await tick();
    held.receive(frame(4));
    expect(got).toEqual([1, 2, 3, 4]);
  });

  it("hands the waiting frames over only after the subscriber finished wiring (a listener added right after subscribing sees them)", async () => {
    const held = createHeldLink(() => undefined);
    held.receive(frame(7));
    let listening = false;
    const seenWhileListening: boolean[] = [];
    held.link.onFrame(() => seenWhileListening.push(listening));
    listening = true; // what the network does right after it subscribed: the proxy's listener
    await tick();
    expect(seenWhileListening).toEqual([true]);
  });

  it("an unsubscribed listener gets nothing more", async () => {
    const held = createHeldLink(() => undefined);
    const got: number[] = [];
    const stop = held.link.onFrame((f) => got.push(f[0]!));
    await tick();
    held.receive(frame(1));
    stop();
    held.receive(frame(2));
    expect(got).toEqual([1]);
  });
});
