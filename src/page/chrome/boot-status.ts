import type { EventLog } from "../../log";
import { h, replaceChildren } from "./dom";
import type { Layout } from "./layout";

/** The boot bar follows the log's `boot.progress` events; after an error it stays on the error. */
export function showBootProgress(log: EventLog, layout: Layout): void {
  let bootFailed = false;
  log.subscribe((e) => {
    // "fresh" follows a restore: the bar keeps saying how the guest started and how long it took.
    if (e.kind !== "boot.progress" || bootFailed || e.phase === "fresh") return;
    bootFailed = e.phase === "error";
    layout.bootText.textContent = e.message;
    if (e.phase === "download" && e.total) layout.bootBar.value = (e.loaded ?? 0) / e.total;
    if (e.phase === "ready" || e.phase === "snapshot-restore") layout.bootBar.value = 1;
  });
}

/** The "Boot fresh" button beside the boot bar, once the guest is up. */
export function offerFreshBoot(layout: Layout, bootFresh: () => void): void {
  replaceChildren(
    layout.bootActions,
    h(
      "button",
      {
        class: "small",
        attrs: { type: "button", title: "Forget the saved state and boot the kernel from the image again" },
        on: { click: bootFresh },
      },
      "Boot fresh",
    ),
  );
}
