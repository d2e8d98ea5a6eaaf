import type { NetCounters } from "../../net";
import { formatBytes, h } from "./dom";

/** The Wire panel's counter line: every frame is counted, even the ones not logged one by one. */
export function createWireCounters(read: () => Readonly<NetCounters> | null): HTMLElement {
  const line = h("div", { class: "counters", attrs: { "data-testid": "wire-counters" } }, "no wire yet");
  const element = h("div", { class: "panel-header" }, line);
  setInterval(() => {
    const c = read();
    if (!c) return;
    // Written only when it changed: an unchanged line rewritten twice a second is still a
    // style and layout pass every time on an idle page.
    const text =
      `frames in ${c.framesIn} (${formatBytes(c.bytesIn)}) · out ${c.framesOut} (${formatBytes(c.bytesOut)}) · ` +
      `malformed ${c.malformed} · connections ${c.connectionsOpened} opened, ${c.connectionsRefused} refused · ` +
      `DNS queries ${c.dnsQueries} · retransmits ${c.tcpRetransmits}`;
    if (line.textContent !== text) line.textContent = text;
  }, 500);
  return element;
}
