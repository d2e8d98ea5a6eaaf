import type { FeatureContext } from "./context";

/** The share feature's page side: not built yet (see its issue); mounting it does nothing. */
export function mount(_ctx: FeatureContext): void {}
