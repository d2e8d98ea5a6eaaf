import { messageOf } from "../../../platform";
import type { Resolution } from "../../../resolver";
import { h } from "../../chrome/dom";
import { downloadText } from "../../chrome/download";
import { SAMPLE } from "../../link";
import type { ResolveMode } from "../../services/types";
import type { FeatureContext } from "../context";
import { createAllowlistView } from "./allowlist-view";
import { createCacheView } from "./cache-view";
import { createResolverTree } from "./tree";

/**
 * The resolver's page side: `?harness=URL#sha256=…` (or the top bar's field)
 * resolves a shared harness; the bundled sample is offered, resolved on demand (or at load
 * with `?harness=sample`); `?fixtures=samples` answers remote fetches from the recordings.
 * The Resolver panel shows the org allowlist (editable; a link's proposal waits for Accept)
 * and the run as a tree; the Cache panel shows the CAS on IndexedDB.
 */
export function mount(ctx: FeatureContext): void {
  const { cas, resolver: session, orgAllowlist } = ctx.services;
  let current = ctx.link.harness ?? SAMPLE;

  const note = h("span", { class: "counters", attrs: { "aria-live": "polite", "data-testid": "resolve-note" } });
  const button = (label: string, title: string, onClick: () => void) =>
    h("button", { class: "small", title, attrs: { type: "button" }, on: { click: onClick } }, label);
  const download = button("Download lock file", "Save .fullsend/lock.yaml for the last successful resolve", () => downloadLock());
  download.disabled = true;
  const controls = h(
    "div",
    { attrs: { style: "display: flex; flex-wrap: wrap; gap: 6px; align-items: center" } },
    button(
      "Resolve the sample",
      "Resolve the bundled sample harness (.fullsend/harness/demo.yaml) with its recorded remote library",
      () => {
        current = SAMPLE;
        void run(SAMPLE, "resolve");
      },
    ),
    button("Warm cache", "Fetch everything the current harness needs into the cache, and nothing else", () => void run(current, "warm")),
    button("Resolve offline", "Resolve the current harness from the cache only: nothing is fetched", () => void run(current, "offline")),
    download,
    note,
  );
  const tree = createResolverTree(ctx.log);
  const allowlistView = createAllowlistView(orgAllowlist, () => ctx.panels.select("resolver"));
  ctx.panels.addHeader("resolver", h("div", { class: "panel-header" }, controls, allowlistView, tree.element));
  ctx.panels.addHeader("cache", createCacheView(cas, ctx.log));

  async function run(harness: string, mode: ResolveMode): Promise<Resolution | null> {
    ctx.panels.select("resolver");
    note.textContent = `${mode === "resolve" ? "resolving" : mode === "warm" ? "warming the cache for" : "resolving offline"} ${label(harness)}…`;
    try {
      const resolution = await session.resolve(harness, mode);
      note.textContent = resolution.ok
        ? `${mode === "warm" ? "cache warmed" : "resolved"}: ${label(harness)}`
        : `refused: ${resolution.error?.code ?? "?"} — ${resolution.error?.reason ?? ""}`;
      download.disabled = session.lastLockable() === null;
      return resolution;
    } catch (error) {
      note.textContent = `the resolve did not run: ${messageOf(error)}`;
      return null;
    }
  }

  function downloadLock(): void {
    const text = session.lockFileText();
    if (text === null) {
      note.textContent = "resolve a harness successfully first: only a complete resolve can be locked";
      return;
    }
    downloadText("lock.yaml", text, "application/yaml");
  }

  ctx.harness.onSubmit((value) => {
    current = value;
    void run(value, "resolve");
  });

  ctx.expose("resolver", {
    cas,
    session,
    orgAllowlist,
    db: ctx.services.casDatabase,
    digest: ctx.services.digest,
    resolve: (harness: string, mode: ResolveMode = "resolve") => run(harness, mode),
    lockFileText: () => session.lockFileText(),
    runCasContract: async () => (await import("../../cache/contract")).runCasContractInBrowser(),
  });

  if (ctx.link.harness !== null) {
    const harness = ctx.link.harness;
    if (harness !== SAMPLE) ctx.harness.set(harness);
    // A link that proposes allowlist entries is resolved once the operator has answered, so
    // its harness meets the allowlist the operator chose (rejected: refused as before).
    void orgAllowlist.settled().then(() => run(harness, "resolve"));
  }
}

const label = (harness: string) => (harness === SAMPLE ? "the bundled sample" : harness);
