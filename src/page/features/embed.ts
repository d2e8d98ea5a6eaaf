import type { FeatureContext } from "./context";

/** Placeholder: replaced by the embed feature (issue 11). */
export function mount(_ctx: FeatureContext): void {}
