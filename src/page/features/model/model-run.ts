import { ModelSettings, type PageStep } from "../../../model";
import { messageOf } from "../../../platform";
import { createModelSkillTools } from "../../../skills";
import { replaceChildren } from "../../chrome/dom";
import type { ActiveRun, RunOptions, RunResult } from "../../services/types";
import type { FeatureContext } from "../context";
import type { ModelForm } from "./form";

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

/**
 * A model-driven run: the runner's run with one step `model GOAL`, with /v0/model armed for
 * exactly its duration. The key is read from the form only here, when the run starts, and held
 * only by the armed endpoint.
 */
export function createModelRun(ctx: FeatureContext, form: ModelForm): (options?: ModelRunOptions) => Promise<RunResult> {
  const { modelEndpoint: endpoint, runner, skills } = ctx.services;
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

  return async function run(options: ModelRunOptions = {}): Promise<RunResult> {
    const fail = (message: string): never => {
      replaceChildren(form.status, message);
      throw new Error(message);
    };
    const settings = ModelSettings.safeParse({
      provider: form.provider(),
      model: form.model.value,
      ...form.baseUrl(),
      key: form.key.value,
    });
    if (!settings.success)
      return fail(`model settings: ${settings.error.issues.map((i) => `${i.path.join(".") || "settings"}: ${i.message}`).join("; ")}`);
    const { goal: goalOption, steps, registry = skills.registry.current(), ...runOptions } = options;
    const goalText = (goalOption ?? form.goal.value).replace(/\s+/g, " ").trim();
    if (steps === undefined && goalText === "") return fail("give the model a goal");
    if (endpoint.armed() !== null) return fail("a model-driven run is already armed");
    form.runButton.disabled = true;
    replaceChildren(form.status, `running with ${settings.data.model}…`);
    // /v0/model is armed for exactly the run's duration, with the run's repository notes and
    // the skill verbs; a skill the model attaches is delivered into the run's tree.
    const whileRunning = (active: ActiveRun) =>
      endpoint.arm({
        settings: settings.data,
        ...(active.repository !== null ? { repository: active.repository } : {}),
        skills: createModelSkillTools({
          fetch: ctx.services.fetch,
          log: ctx.log,
          store: skills.store,
          handles: skills.handles,
          registry,
          scriptPins: () => skills.choices.scriptPins(),
          onAttach: async (skill) => {
            await active.deliverSkill(skill).catch((error: unknown) => skillNote(active.id, "use_skill", "failed", `${error}`));
          },
        }),
        onSkillStep: (step) => skillStep(active.id, step),
      });
    try {
      const result = await runner.run({ ...runOptions, steps: steps ?? [`model ${goalText}`], whileRunning });
      replaceChildren(form.status, `${result.id}: ${result.outcome} (${result.stage})`);
      return result;
    } catch (error) {
      return fail(`failed: ${messageOf(error)}`);
    } finally {
      form.runButton.disabled = false;
    }
  };
}
