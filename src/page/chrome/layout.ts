import { h } from "./dom";

export interface Layout {
  root: HTMLElement;
  harnessInput: HTMLInputElement;
  harnessForm: HTMLFormElement;
  scenarioBar: HTMLElement;
  /** The top bar's place for the share feature's button and link (empty until it mounts). */
  shareBox: HTMLElement;
  terminalBox: HTMLElement;
  bootBar: HTMLProgressElement;
  bootText: HTMLElement;
  bootActions: HTMLElement;
  panelsBox: HTMLElement;
}

/** The page's skeleton: a top bar, the terminal, the panels. */
export function createLayout(): Layout {
  const harnessInput = h("input", {
    id: "harness-url",
    attrs: {
      type: "url",
      placeholder: "https://…/harness.yaml#sha256=…",
      "aria-label": "Harness URL",
      spellcheck: "false",
      autocomplete: "off",
    },
  });
  const harnessForm = h(
    "form",
    { class: "harness", attrs: { role: "search", "aria-label": "Open a harness" } },
    h("label", { attrs: { for: "harness-url" } }, "Harness"),
    harnessInput,
    h("button", { attrs: { type: "submit" } }, "Resolve"),
  );
  const scenarioBar = h("nav", { class: "scenarios", attrs: { "aria-label": "Scenarios" } });
  scenarioBar.hidden = true;
  const shareBox = h("div", { class: "share" });
  const bootBar = h("progress", { attrs: { max: "1", value: "0", "aria-label": "Guest boot progress" } });
  const bootText = h("span", { class: "boot-text", attrs: { "aria-live": "polite" } }, "Loading the guest image…");
  const bootActions = h("span", { class: "boot-actions" });
  const terminalBox = h("div", { class: "terminal-box", id: "terminal", attrs: { "aria-label": "Guest terminal (serial console)" } });
  const panelsBox = h("div", { class: "panels-box" });

  const root = h(
    "div",
    { class: "app" },
    h("header", { class: "topbar" }, h("h1", {}, "Linux in a tab"), harnessForm, shareBox),
    scenarioBar,
    h(
      "main",
      { class: "workspace" },
      h(
        "section",
        { class: "terminal-pane", attrs: { "aria-label": "Terminal" } },
        h("div", { class: "boot", role: "status" }, bootBar, bootText, bootActions),
        terminalBox,
      ),
      panelsBox,
    ),
  );
  return { root, harnessInput, harnessForm, scenarioBar, shareBox, terminalBox, bootBar, bootText, bootActions, panelsBox };
}
