import type { FeatureContext } from "./context";
import { mount as embed } from "./embed/mount";
import { mount as model } from "./model/mount";
import { mount as resolve } from "./resolve/mount";
import { mount as runner } from "./runner/mount";
import { mount as share } from "./share/mount";
import { mount as skills } from "./skills/mount";
import { mount as timeline } from "./timeline/mount";
import { mount as tour } from "./tour/mount";
import { mount as vault } from "./vault/mount";

export type { FeatureContext } from "./context";

/** Every page feature, mounted in this order once the shell exists. */
export function mountFeatures(ctx: FeatureContext): void {
  for (const mount of [resolve, skills, vault, runner, model, share, timeline, tour, embed]) mount(ctx);
}
