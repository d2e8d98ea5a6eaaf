// What code inside `page.evaluate` reads on `window`, typed so that no test casts it: the page's
// test handle `window.__tab` (src/page/handle.ts; what features expose is typed by
// src/page/features/exposed.ts), and the few globals the tests set themselves.
import type { AxeResults } from "axe-core";
import type { PlaygroundHandle } from "../../src/page/handle";

declare global {
  /** A message the lesson player (or the page) posted to its embedding page, as a test's parent page records it. */
  interface PostedMessage {
    type: string;
    source?: string;
    step?: number;
    pin?: string;
    /** The sender's origin, when the recording page adds it. */
    origin?: string;
    notKept?: string[];
  }

  interface Window {
    __tab?: PlaygroundHandle;
    /** The player's messages as a test's parent page recorded them (an init script sets it). */
    messages?: PostedMessage[];
    /** The custom element's re-dispatched events, as a test's page recorded them. */
    seen?: string[];
    /** Where a canary was put in the DOM (e2e/skills.spec.ts). */
    __canarySeen?: string[];
    /** The kept guest state, read out in chunks (e2e/support/warm-state.ts). */
    __warmState?: ArrayBuffer;
    /** axe-core, once its script is added (e2e/accessibility.spec.ts). */
    axe?: { run(context: Document, options: object): Promise<AxeResults> };
  }
}
