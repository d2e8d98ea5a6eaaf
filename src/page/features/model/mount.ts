import { replaceChildren } from "../../chrome/dom";
import type { FeatureContext } from "../context";
import { createModelForm } from "./form";
import { createModelRun } from "./model-run";
import { modelCallVerdict, policyAllowingModel } from "./policy";

export type { ModelRunOptions } from "./model-run";

/**
 * The model-driven agent (optional part): a Model section in the Runner panel's header
 * (./form.ts). The key is a password field read only when a run starts and held only by the
 * armed endpoint, in memory (never stored, never in an attribute, never sent to the guest).
 * The run is the runner's, with one step `model GOAL` (./model-run.ts): the guest's tab-agent
 * asks /v0/model for each next step. Beside the fields, what the policy says of the model URL.
 */
export function mount(ctx: FeatureContext): void {
  const form = createModelForm({
    run: () => void run().catch(() => undefined),
    allowOnPolicy: () => void allowOnPolicy(),
  });
  const run = createModelRun(ctx, form);

  const refreshPolicy = () => {
    const url = form.targetUrl();
    if (url === null) {
      replaceChildren(form.policyNote, "the base URL is not a plain https:// URL");
      form.allowButton.hidden = true;
      return;
    }
    const verdict = modelCallVerdict(ctx.policy.current(), url);
    replaceChildren(
      form.policyNote,
      verdict.allowed ? `POST ${url}: allowed by the policy` : `POST ${url}: ${verdict.code} — model calls will be refused`,
    );
    form.allowButton.hidden = verdict.allowed;
  };
  async function allowOnPolicy(): Promise<void> {
    const url = form.targetUrl();
    if (url === null) return;
    await ctx.policy.replace(policyAllowingModel(ctx.policy.current(), url), "model");
  }
  form.onTargetChange(refreshPolicy);
  ctx.log.subscribe((e) => {
    if (e.kind === "policy.change") refreshPolicy();
  });
  refreshPolicy();

  ctx.panels.addHeader("runner", form.element);
  ctx.expose("model", { run, armed: () => ctx.services.modelEndpoint.armed() });
}
