import type { Layout } from "./chrome/layout";
import type { ExposedFeatures, HarnessField, PageContext, PageMode, PagePlace } from "./features";
import type { PagePanels } from "./panels";

/** What the page gives features beside its layout: its parts, handed through as they are. */
export type PageParts = Omit<PageContext, "panels" | "harness" | "setMode" | "place" | "showDialog" | "expose">;

/**
 * The features' context: the page's parts, and verbs on the layout in place of the layout
 * itself, so that what a feature may touch is code (features/context.ts), not prose.
 */
export function createPageContext(parts: PageParts, layout: Layout, panels: PagePanels, exposed: Partial<ExposedFeatures>): PageContext {
  const { add, addHeader, select, has } = panels;
  return {
    ...parts,
    panels: { add, addHeader, select, has },
    harness: harnessField(layout),
    setMode: (mode) => setMode(layout, mode),
    place: (where, element) => place(layout, where, element),
    showDialog: (dialog) => {
      dialog.addEventListener("close", () => dialog.remove());
      document.body.appendChild(dialog);
      dialog.showModal();
    },
    expose: (name, value) => {
      exposed[name] = value;
    },
  };
}

function harnessField(layout: Layout): HarnessField {
  return {
    value: () => layout.harnessInput.value.trim(),
    set: (value) => {
      layout.harnessInput.value = value;
    },
    onSubmit: (listener) =>
      layout.harnessForm.addEventListener("submit", (event) => {
        event.preventDefault();
        const value = layout.harnessInput.value.trim();
        if (value !== "") listener(value);
      }),
  };
}

function setMode(layout: Layout, mode: PageMode): void {
  if (mode.kind === "lesson-focus") {
    layout.root.classList.toggle("lesson-focus", mode.on);
    return;
  }
  // The document too: embed.css sizes the page to its iframe.
  document.documentElement.classList.add("embed");
  layout.root.classList.add("embed");
  layout.root.dataset.embedPanel = mode.panel;
}

function place(layout: Layout, where: PagePlace, element: HTMLElement): void {
  if (where === "share") layout.shareBox.appendChild(element);
  else if (where === "above-panels") layout.panelsBox.prepend(element);
  else layout.root.prepend(element);
}
