import type { FeatureContext } from "./context";
import { mount as embed } from "./embed";
import { mount as model } from "./model";
import { mount as resolve } from "./resolve";
import { mount as runner } from "./runner";
import { mount as share } from "./share";
import { mount as skills } from "./skills";
import { mount as timeline } from "./timeline";
import { mount as tour } from "./tour";
import { mount as vault } from "./vault";

export type { FeatureContext } from "./context";

/** Every page feature, mounted in this order once the shell exists. */
export function mountFeatures(ctx: FeatureContext): void {
  for (const mount of [resolve, skills, vault, runner, model, share, timeline, tour, embed]) mount(ctx);
}
