import { DEFAULT_MODELS, DEFAULT_OPENAI_BASE, MODEL_PROVIDERS, type ModelProvider, ModelSettings, modelUrl } from "../../../model";
import { createEmitter } from "../../../platform";
import { h } from "../../chrome/dom";

const PROVIDER_LABEL: Record<ModelProvider, string> = { anthropic: "Anthropic Messages", openai: "OpenAI-compatible" };
const DEFAULT_GOAL = "read https://api.github.com/zen through the proxy, then finish with what it said";

/** The Model section's fields and buttons, and what they say (the provider, the base URL, the model URL). */
export interface ModelForm {
  readonly element: HTMLElement;
  readonly model: HTMLInputElement;
  /** The API key: a password field, read only when a run starts. */
  readonly key: HTMLInputElement;
  readonly goal: HTMLInputElement;
  readonly runButton: HTMLButtonElement;
  readonly policyNote: HTMLElement;
  readonly allowButton: HTMLButtonElement;
  readonly status: HTMLElement;
  provider(): ModelProvider;
  /** The OpenAI-compatible base URL when one is given, as settings take it. */
  baseUrl(): { baseUrl?: string };
  /** The URL model calls go to, or null when the base URL is not a plain https:// URL. */
  targetUrl(): string | null;
  /** Called when the provider or the base URL changes. */
  onTargetChange(listener: () => void): void;
}

/** The Model section in the Runner panel's header: provider, model, base URL, key, goal, Run, and the policy's word on the model URL. */
export function createModelForm(actions: { run(): void; allowOnPolicy(): void }): ModelForm {
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
      on: { click: () => actions.run() },
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
      on: { click: () => actions.allowOnPolicy() },
    },
    "Allow on policy",
  );
  const status = h("span", { class: "counters", attrs: { "aria-live": "polite", "data-model-status": "" } });
  const element = h(
    "div",
    { class: "panel-header runner-controls", attrs: { "data-model": "", role: "group", "aria-label": "Model-driven agent" } },
    h("strong", {}, "Model"),
    ...[provider, model, base, key, goal, runButton, policyNote, allowButton, status].flatMap((part) => [" ", part]),
  );

  const chosenProvider = (): ModelProvider => (provider.value === "openai" ? "openai" : "anthropic");
  const baseUrl = () => (chosenProvider() === "openai" && base.value.trim() !== "" ? { baseUrl: base.value.trim() } : {});
  const targetChanged = createEmitter();
  provider.addEventListener("change", () => {
    const chosen = chosenProvider();
    base.hidden = chosen !== "openai";
    if ((Object.values(DEFAULT_MODELS) as string[]).includes(model.value)) model.value = DEFAULT_MODELS[chosen];
    targetChanged.emit();
  });
  base.addEventListener("input", () => {
    targetChanged.emit();
  });
  return {
    element,
    model,
    key,
    goal,
    runButton,
    policyNote,
    allowButton,
    status,
    provider: chosenProvider,
    baseUrl,
    targetUrl: () => {
      const parsed = ModelSettings.pick({ provider: true, baseUrl: true }).safeParse({ provider: chosenProvider(), ...baseUrl() });
      return parsed.success ? modelUrl(parsed.data) : null;
    },
    onTargetChange: (listener) => {
      targetChanged.subscribe(listener);
    },
  };
}
