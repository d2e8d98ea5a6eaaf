import type { EventLog } from "../../log";
import type { OwnHandlers } from "../../proxy";
import type { FeatureContext } from "./context";

/** Placeholder: the model-driven agent's own proxy endpoints (issue 9, optional part). */
export function modelHandlers(_log: EventLog): OwnHandlers {
  return {};
}

/** Placeholder: replaced by the model-driven agent feature (issue 9, optional part). */
export function mount(_ctx: FeatureContext): void {}
