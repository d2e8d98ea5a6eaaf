import { describe, expect, it } from "vitest";
import type { PanelId } from "./ids";
import { panelRegistry } from "./registry";

// The page's panels by typed id: what a feature asks of a panel another feature adds later
// waits for it, so features do not depend on the order they mount in.

/** A stand-in for a feature's element: the registry only passes it on. */
const element = (name: string) => ({ name }) as unknown as HTMLElement;

function setup() {
  const headers: string[] = [];
  const selected: PanelId[] = [];
  const added: PanelId[] = [];
  const panel = (id: PanelId) => ({ id, addHeader: (e: HTMLElement) => headers.push(`${id}:${(e as unknown as { name: string }).name}`) });
  const registry = panelRegistry([panel("wire"), panel("proxy"), panel("policy")], {
    select: (id) => selected.push(id),
    add: (p) => added.push(p.id),
  });
  return { registry, panel, headers, selected, added };
}

describe("the page's panels by typed id", () => {
  it("gives a built-in panel its header at once", () => {
    const { registry, headers } = setup();
    registry.addHeader("policy", element("tools"));
    expect(headers).toEqual(["policy:tools"]);
  });

  it("holds a header asked of a panel not yet added, and gives it once the panel is added", () => {
    const { registry, panel, headers, added } = setup();
    registry.addHeader("replay", element("log replay"));
    expect(headers).toEqual([]);
    expect(registry.has("replay")).toBe(false);
    registry.add(panel("replay"));
    expect(added).toEqual(["replay"]);
    expect(headers).toEqual(["replay:log replay"]);
    expect(registry.has("replay")).toBe(true);
  });

  it("shows a panel asked for before it was added once it is, unless another was shown since", () => {
    const a = setup();
    a.registry.select("lessons");
    expect(a.selected).toEqual([]);
    a.registry.add(a.panel("lessons"));
    expect(a.selected).toEqual(["lessons"]);

    const b = setup();
    b.registry.select("lessons");
    b.registry.select("proxy");
    b.registry.add(b.panel("lessons"));
    expect(b.selected).toEqual(["proxy"]);
  });

  it("refuses a panel added twice", () => {
    const { registry, panel } = setup();
    expect(() => registry.add(panel("proxy"))).toThrow("the proxy panel was added twice");
  });
});
