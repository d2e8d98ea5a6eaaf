import { h } from "./chrome/dom";
import { firstSeen } from "./emulator/first-seen";

/**
 * What an embed (`?embed=…`) shows until the reader first sees it or clicks it: a line of text
 * and a button, nothing else. A docs page may hold ten embeds, and before this each one built
 * the whole playground (the terminal, the panels, the log) at once, about 37 MB apiece
 * (docs/performance.md, "Idle"). The playground loads, and its machine starts, once any part of
 * the embed is in the viewport of a visible page or the reader clicks or types in it
 * (emulator/first-seen.ts); then the placeholder goes.
 */
export async function placeholderUntilSeen(container: HTMLElement): Promise<void> {
  const box = h(
    "div",
    { role: "region", attrs: { "data-embed-placeholder": "", "aria-label": "Linux in a tab" } },
    h("p", {}, "Linux in a tab: this demo's guest starts when it comes into view."),
    h("button", { attrs: { type: "button" } }, "Start it now"),
  );
  Object.assign(box.style, {
    height: "100%",
    display: "flex",
    flexDirection: "column",
    alignItems: "center",
    justifyContent: "center",
    gap: "12px",
    color: "var(--muted)",
  });
  container.appendChild(box);
  try {
    await firstSeen(box);
  } finally {
    box.remove();
  }
}
