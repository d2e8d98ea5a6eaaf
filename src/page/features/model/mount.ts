import {
  DEFAULT_MODELS,
  DEFAULT_OPENAI_BASE,
  MODEL_PROVIDERS,
  type ModelProvider,
  ModelSettings,
  modelUrl,
  type PageStep,
} from "../../../model";
import { createModelSkillTools } from "../../../skills";
import { h, replaceChildren } from "../../chrome/dom";
import type { ActiveRun, RunOptions, RunResult } from "../../services/types";
import type { FeatureContext } from "../context";
import { modelCallVerdict, policyAllowingModel } from "./policy";

/**
 * What "Run with model" accepts: a run's options, the goal, optionally the exact steps (one
 * must be `model …`), and the skill registry `search_skills` uses (default: the Skills panel's
 * registry field; null: the verb is not offered).
 */
export type ModelRunOptions = Omit<RunOptions, "steps" | "whileRunning"> & {
  goal?: string;
  steps?: readonly string[];
  registry?: string | null;
};

const PROVIDER_LABEL: Record<ModelProvider, string> = { anthropic: "Anthropic Messages", openai: "OpenAI-compatible" };
const DEFAULT_GOAL = "read https://api.github.com/zen through the proxy, then finish with what it said";

/**
 * The model-driven agent (optional part): a Model section in the Runner panel's
 * header. The key is a password field read only when a run starts and held only by the armed
 * endpoint, in memory (never stored, never in an attribute, never sent to the guest). The
 * run is the runner's, with one step `model GOAL`: the guest's tab-agent asks /v0/model for
 * each next step.
 */
export function mount(ctx: FeatureContext): void {
  const { modelEndpoint: endpoint, runner } = ctx.services;

  const provider = h(
    "select",
    { attrs: { "aria-label": "Model provider", "data-model-provider": "" } },
    ...MODEL_PROVIDERS.map((p) => h("option", { attrs: { value: p } }, PROVIDER_LABEL[p])),
  );
  const model = h("input", {
    attrs: {
      type: "text",
      value: DEFAULT_MODELS.anthropic,
      size: "16",
      spellcheck: "false",
      "aria-label": "Model name",
      "data-model-name": "",
    },
  });
  const base = h("input", {
    attrs: { type: "url", placeholder: DEFAULT_OPENAI_BASE, size: "22", spellcheck: "false", "aria-label": "OpenAI-compatible base URL" },
  });
  base.hidden = true;
  const key = h("input", {
    attrs: {
      type: "password",
      autocomplete: "off",
      spellcheck: "false",
      size: "16",
      placeholder: "API key (memory only)",
      "aria-label": "Model API key, kept in this page's memory only",
      "data-model-key": "",
    },
  });
  const goal = h("input", {
    attrs: { type: "text", value: DEFAULT_GOAL, size: "30", spellcheck: "false", "aria-label": "The model's goal", "data-model-goal": "" },
  });
  const runButton = h(
    "button",
    {
      class: "small",
      title: "Run the harness with one step, model GOAL: the agent in the guest asks the model (through the proxy) for each next step",
      attrs: { type: "button", "data-run-model": "" },
      on: { click: () => void run().catch(() => undefined) },
    },
    "Run with model",
  );
  const policyNote = h("span", { class: "counters", attrs: { "data-model-policy": "" } });
  const allowButton = h(
    "button",
    {
      class: "small",
      title: "Add one endpoint rule to the policy: POST on the model URL's path, on its host",
      attrs: { type: "button", "data-model-allow": "" },
      on: { click: () => void allowOnPolicy() },
    },
    "Allow on policy",
  );
  const status = h("span", { class: "counters", attrs: { "aria-live": "polite", "data-model-status": "" } });

  const chosenProvider = (): ModelProvider => (provider.value === "openai" ? "openai" : "anthropic");
  const baseUrl = () => (chosenProvider() === "openai" && base.value.trim() !== "" ? { baseUrl: base.value.trim() } : {});
  const targetUrl = (): string | null => {
    const parsed = ModelSettings.pick({ provider: true, baseUrl: true }).safeParse({ provider: chosenProvider(), ...baseUrl() });
    return parsed.success ? modelUrl(parsed.data) : null;
  };

  const refreshPolicy = () => {
    const url = targetUrl();
    if (url === null) {
      replaceChildren(policyNote, "the base URL is not a plain https:// URL");
      allowButton.hidden = true;
      return;
    }
    const verdict = modelCallVerdict(ctx.policy.current(), url);
    replaceChildren(
      policyNote,
      verdict.allowed ? `POST ${url}: allowed by the policy` : `POST ${url}: ${verdict.code} — model calls will be refused`,
    );
    allowButton.hidden = verdict.allowed;
  };

  async function allowOnPolicy(): Promise<void> {
    const url = targetUrl();
    if (url === null) return;
    await ctx.policy.replace(policyAllowingModel(ctx.policy.current(), url), "model");
  }

  provider.addEventListener("change", () => {
    const chosen = chosenProvider();
    base.hidden = chosen !== "openai";
    if ((Object.values(DEFAULT_MODELS) as string[]).includes(model.value)) model.value = DEFAULT_MODELS[chosen];
    refreshPolicy();
  });
  base.addEventListener("input", refreshPolicy);
  ctx.log.subscribe((e) => {
    if (e.kind === "policy.change") refreshPolicy();
  });
  refreshPolicy();

  async function run(options: ModelRunOptions = {}): Promise<RunResult> {
    const fail = (message: string): never => {
      replaceChildren(status, message);
      throw new Error(message);
    };
    const settings = ModelSettings.safeParse({ provider: chosenProvider(), model: model.value, ...baseUrl(), key: key.value });
    if (!settings.success)
      return fail(`model settings: ${settings.error.issues.map((i) => `${i.path.join(".") || "settings"}: ${i.message}`).join("; ")}`);
    const { goal: goalOption, steps, registry = ctx.services.skills.registry.current(), ...runOptions } = options;
    const goalText = (goalOption ?? goal.value).replace(/\s+/g, " ").trim();
    if (steps === undefined && goalText === "") return fail("give the model a goal");
    if (endpoint.armed() !== null) return fail("a model-driven run is already armed");
    runButton.disabled = true;
    replaceChildren(status, `running with ${settings.data.model}…`);
    // /v0/model is armed for exactly the run's duration, with the run's repository notes and
    // the skill verbs; a skill the model attaches is delivered into the run's tree.
    const whileRunning = (active: ActiveRun) =>
      endpoint.arm({
        settings: settings.data,
        ...(active.repository !== null ? { repository: active.repository } : {}),
        skills: createModelSkillTools({
          fetch: ctx.services.fetch,
          log: ctx.log,
          store: ctx.services.skills.store,
          handles: ctx.services.skills.handles,
          registry,
          scriptPins: () => ctx.services.skills.choices.scriptPins(),
          onAttach: async (skill) => {
            await active.deliverSkill(skill).catch((error: unknown) => skillNote(active.id, "use_skill", "failed", `${error}`));
          },
        }),
        onSkillStep: (step) => skillStep(active.id, step),
      });
    try {
      const result = await runner.run({ ...runOptions, steps: steps ?? [`model ${goalText}`], whileRunning });
      replaceChildren(status, `${result.id}: ${result.outcome} (${result.stage})`);
      return result;
    } catch (error) {
      return fail(`failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      runButton.disabled = false;
    }
  }

  /** A skill step the page took for the model, on the Runner panel (its lines are pin-free). */
  const skillNote = (run: string, step: string, outcome: string | null, message: string) =>
    ctx.log.append({
      kind: "runner.step",
      run,
      source: "runner",
      step,
      outcome,
      level: outcome === "refused" || outcome === "failed" ? "warning" : "info",
      message,
    });
  const skillStep = (run: string, step: PageStep) => {
    const verb = step.step.split(" ", 1)[0] ?? "skill";
    const outcome = /outcome=([a-z-]+)/.exec(step.lines[0] ?? "")?.[1] ?? null;
    skillNote(run, verb, outcome, `model step (page): ${step.step} → ${step.lines.join(" | ")}`);
  };

  ctx.panels.addHeader(
    "runner",
    h(
      "div",
      { class: "panel-header runner-controls", attrs: { "data-model": "", role: "group", "aria-label": "Model-driven agent" } },
      h("strong", {}, "Model"),
      " ",
      provider,
      " ",
      model,
      " ",
      base,
      " ",
      key,
      " ",
      goal,
      " ",
      runButton,
      " ",
      policyNote,
      " ",
      allowButton,
      " ",
      status,
    ),
  );
  ctx.expose("model", { run, armed: () => endpoint.armed() });
}
