import { withoutToken } from "../../trust";
import { h } from "../chrome/dom";
import type { PageRelay } from "./page-relay";
import type { RelaySetting } from "./settings";

/**
 * The Policy panel's relay field: the Wisp relay the page reaches hosts through (validated as
 * typed, applied with Enter or the button, kept in localStorage), and what it means now.
 */
export function createRelayField(relay: PageRelay): { element: HTMLElement } {
  const input = h("input", {
    class: "relay-url",
    attrs: {
      type: "text",
      spellcheck: "false",
      placeholder: "ws://127.0.0.1:5001/ (from npx tab relay) or wss://…",
      "aria-label": "Wisp relay URL",
      "data-testid": "relay-url",
    },
  });
  const status = h("div", { class: "relay-status", attrs: { "aria-live": "polite", "data-testid": "relay-status" } });
  const show = (setting: RelaySetting) => {
    status.className = setting.ok ? "relay-status valid" : "relay-status invalid";
    const waiting = relay.proposed();
    if (waiting !== null)
      status.textContent = `this page's link proposes the relay ${withoutToken(waiting)}: it is not contacted unless you accept the link's card`;
    else if (!setting.ok) status.textContent = `not applied: ${setting.error}`;
    else if (setting.url === null)
      status.textContent = "no relay: requests use the browser's fetch(), so only hosts that answer CORS can be read";
    else
      status.textContent = `relay ${setting.url}${setting.source === "link" ? " (from this page's link, for this visit)" : ""}: the page opens a Wisp stream to the host the policy allowed and is the TLS client itself`;
  };
  const apply = () => show(relay.set(input.value));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") apply();
  });
  const button = h("button", { attrs: { type: "button", "data-testid": "relay-apply" }, on: { click: apply } }, "Use relay");
  const current = relay.setting();
  input.value = current.ok ? (current.url ?? "") : current.text;
  show(current);
  relay.onChange(show);
  const testNote =
    relay.testAnchors > 0
      ? h(
          "div",
          { class: "relay-status invalid", attrs: { "data-testid": "relay-test-roots" } },
          `TEST ONLY: the page's TLS client also trusts ${relay.testAnchors} root(s) a test defined`,
        )
      : relay.testAnchorsError
        ? h("div", { class: "relay-status invalid" }, `test roots ignored: ${relay.testAnchorsError}`)
        : null;
  const element = h("div", { class: "relay-field" }, h("label", {}, "Wisp relay ", input, " ", button), status, testNote);
  return { element };
}
