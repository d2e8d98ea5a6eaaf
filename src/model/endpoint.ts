import { z } from "zod";
import { utf8 } from "../bytes";
import { allow, refuse, type Verdict } from "../log";
import type { Timers } from "../platform";
import type { OwnDecision, OwnHandlers, OwnRequest, OwnResponse } from "../proxy";
import { parseModelAnswer } from "./answer";
import { systemPrompt, userMessage, type VerbUsage } from "./prompt";
import { redactSecret } from "./redact";
import type { RepositoryNote } from "./repo-context";
import { buildModelRequest } from "./request";
import { type ModelSettings, modelUrl } from "./settings";
import {
  guestStepCount,
  type ModelSkills,
  mergeTranscript,
  type PageStep,
  runSkillStep,
  SkillStepLine,
  skillVerbUsages,
} from "./skill-verbs";
import { extractStep } from "./step";

/**
 * `POST /v0/model` on the page's proxy (optional part): the guest's model-driven agent
 * posts its transcript as plain text and gets back exactly one next step line. The page holds
 * the key; the guest never sees it. Each call is the proxy's by-value fetch of the model API
 * (the same policy decision as `POST /v0/fetch`) and exactly one `proxy.decision` event, whose
 * target is the model URL. The endpoint answers only while a run is armed, for a bounded
 * number of calls.
 */

export const MODEL_PATH = "/v0/model";
export const MODEL_ROUTE = `POST ${MODEL_PATH}`;
export const DEFAULT_MAX_CALLS = 12;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export interface ModelRun {
  settings: ModelSettings;
  /** Model calls this run may make (default 12): the page's own bound, beside the guest's. */
  maxCalls?: number;
  /**
   * The caller repository's AGENTS.md / CLAUDE.md, captured before quarantine
   * (`captureRepositoryNotes`): given to the model after the rules, as subordinate context.
   */
  repository?: readonly RepositoryNote[];
  /** The skill verbs (`search_skills`, `acquire_skill`, `use_skill`); absent: not offered. */
  skills?: ModelSkills;
  /** Told of each skill step the page took for the model (for the Runner panel). */
  onSkillStep?(step: PageStep): void;
}

export interface ModelEndpointOptions {
  /** The verbs the model may answer with, and how the prompt explains them. */
  verbs: readonly VerbUsage[];
  /** The platform rules (guest/runner/agent-rules.md). */
  rules: string;
  /** The runner's rule for one step line (`AgentStep`). */
  stepSchema: z.ZodType<string>;
  /** Without timers a call never times out (tests); hosts pass theirs. */
  timers?: Timers;
  timeoutMs?: number;
}

export interface ModelEndpoint {
  /** `{"POST /v0/model": handler}`, for the proxy's own handlers. */
  handlers: OwnHandlers;
  /** Opens the endpoint for one run; the returned function closes it again. */
  arm(run: ModelRun): () => void;
  /** The armed run's use so far, or null. */
  armed(): { calls: number; maxCalls: number } | null;
}

interface ArmedRun {
  run: ModelRun;
  settings: ModelSettings;
  maxCalls: number;
  calls: number;
  /** The skill steps taken so far, each placed after the guest step it followed. */
  pageSteps: PageStep[];
  /** The `<skill_context>` blocks the model attached, by handle, in order. */
  contexts: Map<string, string>;
}

const BY_VALUE: OwnDecision = { mode: "fetch" };
/** An upstream answer that yields no step is the model's failure, not the policy's: 502. */
const BAD_ANSWER: OwnDecision = { mode: "fetch", status: 502 };

export function createModelEndpoint(options: ModelEndpointOptions): ModelEndpoint {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const guestRules = { verbs: options.verbs.map((v) => v.verb), schema: options.stepSchema };
  const withSkills = (usages: readonly VerbUsage[]) => ({
    verbs: [...guestRules.verbs, ...usages.map((v) => v.verb)],
    schema: z.union([SkillStepLine, options.stepSchema]),
  });
  let current: ArmedRun | null = null;

  function withTimeout<T>(work: Promise<T>): Promise<T | "timeout"> {
    const timers = options.timers;
    if (!timers) return work;
    let handle: unknown;
    const timeout = new Promise<"timeout">((resolve) => {
      handle = timers.setTimeout(() => resolve("timeout"), timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => timers.clearTimeout(handle));
  }

  async function handle(request: OwnRequest): Promise<OwnResponse> {
    const run = current;
    if (!run)
      return {
        verdict: refuse(
          "endpoint-not-allowed",
          `${MODEL_ROUTE} answers only during a model-driven run: the page holds no armed model key (set one in the Runner panel's Model section and use "Run with model")`,
          "proxy",
        ),
      };
    const { settings } = run;
    const url = modelUrl(settings);
    const skills = run.run.skills;
    // The key, and any stretch of a used skill's text, never leave in anything the endpoint says.
    const scrub = (text: string) => redactSecret(skills ? skills.scrub(text) : text, settings.key);
    const refused = (verdict: Verdict, decision: OwnDecision = BY_VALUE): OwnResponse => ({
      verdict: { ...verdict, reason: scrub(verdict.reason) },
      target: url,
      decision,
    });
    if (run.calls >= run.maxCalls)
      return refused(refuse("endpoint-not-allowed", `this model-driven run has used all ${run.maxCalls} of its model calls`, "proxy"));
    const transcript = new TextDecoder().decode(request.body);
    if (transcript.trim() === "")
      return refused(refuse("bad-request", `${MODEL_ROUTE} expects the run's transcript as its text body`, "proxy"));
    if (!request.fetchByValue) return refused(refuse("upstream-error", "this proxy offers its handlers no by-value fetch", "proxy"));
    const fetchByValue = request.fetchByValue;

    const skillUsages = skills ? skillVerbUsages(skills) : [];
    const rules = skills ? withSkills(skillUsages) : guestRules;
    const skillVerbs = new Set(skillUsages.map((v) => v.verb));
    /** The skill steps this request took before the model named a guest step. */
    const taken: string[] = [];
    // Skill steps are the page's own: each is one more model call inside this one request,
    // until the model names a step for the guest (or the run's calls are used up).
    for (;;) {
      if (run.calls >= run.maxCalls)
        return refused(
          refuse(
            "endpoint-not-allowed",
            `this model-driven run has used all ${run.maxCalls} of its model calls (skill steps: ${taken.join("; ")})`,
            "proxy",
          ),
        );
      run.calls++;
      const call = buildModelRequest(settings, {
        system: systemPrompt({
          verbs: [...options.verbs, ...skillUsages],
          rules: options.rules,
          maxSteps: run.maxCalls,
          ...(run.run.repository ? { repository: run.run.repository } : {}),
          skills: [...run.contexts.values()],
        }),
        user: userMessage(mergeTranscript(transcript, run.pageSteps)),
      });
      const outcome = await withTimeout(
        // Never through a CORS proxy: it would see the key.
        fetchByValue({ method: call.method, url: call.url, headers: call.headers, body: utf8(call.body), corsProxy: false }),
      );
      if (outcome === "timeout")
        return refused(
          refuse("upstream-error", `the model API did not answer within ${Math.round(timeoutMs / 1000)} s`, "proxy"),
          BAD_ANSWER,
        );
      if (outcome.kind === "refused")
        return refused(outcome.verdict, outcome.upstream === undefined ? BY_VALUE : { ...BY_VALUE, upstream: outcome.upstream });
      const via = { ...BY_VALUE, upstream: outcome.upstream };
      if (outcome.answer.base64)
        return refused(refuse("unparsable", `the model API answered ${outcome.answer.status} with a body that is not text`, "proxy"), {
          ...via,
          ...BAD_ANSWER,
        });
      const parsed = parseModelAnswer(settings.provider, outcome.answer.status, outcome.answer.body);
      if (!parsed.ok) return refused(refuse(parsed.code, parsed.reason, "proxy"), { ...via, ...BAD_ANSWER });
      const step = extractStep(parsed.text, rules);
      if (!step.ok)
        return refused(refuse("unparsable", `the model's answer is not one step line: ${step.reason}`, "proxy"), { ...via, ...BAD_ANSWER });
      const verb = step.step.split(" ", 1)[0]!;
      if (skills && skillVerbs.has(verb)) {
        const result = await runSkillStep(step.step, skills);
        const page: PageStep = { after: guestStepCount(transcript), step: step.step, lines: result.lines };
        run.pageSteps.push(page);
        if (result.attached && !run.contexts.has(result.attached.handle)) run.contexts.set(result.attached.handle, result.attached.context);
        taken.push(step.step);
        run.run.onSkillStep?.(page);
        continue;
      }
      const line = scrub(step.step);
      const before = taken.length > 0 ? `; after the skill steps ${taken.join("; ")}` : "";
      return {
        verdict: allow(scrub(`${outcome.verdict.reason}; the model (${settings.model}) answered the step: ${line}${before}`), "proxy"),
        target: url,
        status: 200,
        contentType: "text/plain; charset=utf-8",
        body: `${line}\n`,
        decision: via,
      };
    }
  }

  return {
    handlers: { [MODEL_ROUTE]: handle },
    arm(run) {
      if (current) throw new Error("a model-driven run is already armed");
      const armed: ArmedRun = {
        run,
        settings: run.settings,
        maxCalls: run.maxCalls ?? DEFAULT_MAX_CALLS,
        calls: 0,
        pageSteps: [],
        contexts: new Map(),
      };
      current = armed;
      return () => {
        if (current === armed) current = null;
      };
    },
    armed: () => (current ? { calls: current.calls, maxCalls: current.maxCalls } : null),
  };
}
