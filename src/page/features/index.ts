import type { PageLink } from "../link";
import type { PageServices } from "../services/types";
import type { FeatureContext, PageContext } from "./context";

export type { FeatureContext, HarnessField, PageContext, PageMode, PagePlace } from "./context";
export type { ExposedFeatures } from "./exposed";

/**
 * One page feature: its code, loaded with `import()` so it is not part of the first screen's
 * script, and whether it needs the page's services (which load with it) or only the page's context.
 */
type Feature =
  | { name: string; services: true; load(): Promise<{ mount(ctx: FeatureContext): void }> }
  | { name: string; services: false; load(): Promise<{ mount(ctx: PageContext): void }> };

/**
 * Every page feature, mounted in this order. Their panels' tabs take their places in the panels'
 * own order (panels/ids.ts), and what one asks of a panel another adds waits for it.
 */
const FEATURES: readonly Feature[] = [
  { name: "resolve", services: true, load: () => import("./resolve/mount") },
  { name: "skills", services: true, load: () => import("./skills/mount") },
  { name: "vault", services: true, load: () => import("./vault/mount") },
  { name: "runner", services: true, load: () => import("./runner/mount") },
  { name: "model", services: true, load: () => import("./model/mount") },
  { name: "share", services: true, load: () => import("./share/mount") },
  { name: "policy", services: false, load: () => import("./policy/mount") },
  { name: "timeline", services: false, load: () => import("./timeline/mount") },
  { name: "lessons", services: true, load: () => import("./lessons/mount") },
  { name: "verdict-notice", services: false, load: () => import("./verdict-notice/mount") },
];

/** Whether the link asks for embed mode (`?embed=…`): then the embed feature shapes the first screen. */
export const wantsEmbed = (link: PageLink): boolean => link.embed !== null;

/**
 * Embed mode (`?embed=1&scenario=N`), loaded only when the link asks for it and mounted before
 * the page is shown, so a reader never sees the whole playground flash inside the iframe.
 */
export async function mountEmbed(ctx: PageContext): Promise<void> {
  (await import("./embed/mount")).mount(ctx);
}

/**
 * Loads every feature's code and the services they share (all at once, once a restored guest
 * is ready: emulator/features-may-load.ts), then mounts them in order, one per task. What the link asks for
 * (`?tour=1`, `?harness=…&run=1`, a share fragment) each feature reads when it mounts.
 */
export async function mountFeatures(ctx: PageContext, services: () => Promise<PageServices>): Promise<void> {
  const built = services();
  const mounts = FEATURES.map((feature) =>
    feature.services
      ? feature.load().then((module) => async () => module.mount({ ...ctx, services: await built }))
      : feature.load().then((module) => async () => module.mount(ctx)),
  );
  for (const mount of mounts) {
    // One feature per task: the guest's terminal (a command typed at the first prompt, its
    // output) is served between them instead of after all of them.
    await nextTask();
    await (await mount)();
  }
}

function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === "function") return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
