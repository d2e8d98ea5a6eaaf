/**
 * SVG elements for the timeline. `h()` in dom.ts makes HTML elements only; SVG needs its
 * namespace. As with `h()`, string children become text nodes: event text stays inert.
 */
const SVG_NS = "http://www.w3.org/2000/svg";

type SvgChild = SVGElement | string | null | undefined | false;

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: SvgChild[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, typeof value === "number" ? String(round(value)) : value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

/** Coordinates to a tenth of a pixel: smaller attributes, same picture. */
const round = (n: number) => Math.round(n * 10) / 10;
