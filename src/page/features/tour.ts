import type { FeatureContext } from "./context";

/** Placeholder: replaced by the tour feature (issue 11). */
export function mount(_ctx: FeatureContext): void {}
