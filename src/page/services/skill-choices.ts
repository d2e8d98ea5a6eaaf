import { z } from "zod";

/**
 * The operator's decisions about acquired skills (loading is by handle, and scripts run only where the operator allows that pin; docs/decisions/0003-skills-from-a-public-registry.md): which handles the next
 * agent run attaches, and which exact pins may run their scripts. Both default to nothing
 * ("a run that says neither runs no script"). Kept in localStorage; read back as untrusted.
 */
const Stored = z.object({
  attach: z.array(z.string().max(200)).max(64),
  scriptPins: z.array(z.string().max(300)).max(64),
});
type Stored = z.infer<typeof Stored>;

export const SKILL_CHOICES_KEY = "linux-in-a-tab:skill-choices";

export interface SkillChoices {
  /** Handles a run attaches when it names none itself, in the order they were chosen. */
  attached(): string[];
  setAttached(handle: string, on: boolean): void;
  /** Pins whose scripts the operator allows (exact match, see `mayRunScripts`). */
  scriptPins(): ReadonlySet<string>;
  setScriptsAllowed(pin: string, on: boolean): void;
}

export function createSkillChoices(storage: Pick<Storage, "getItem" | "setItem"> | null, key = SKILL_CHOICES_KEY): SkillChoices {
  const read = (): Stored => {
    try {
      const parsed = Stored.safeParse(JSON.parse(storage?.getItem(key) ?? "null"));
      return parsed.success ? parsed.data : { attach: [], scriptPins: [] };
    } catch {
      return { attach: [], scriptPins: [] };
    }
  };
  const write = (next: Stored) => {
    try {
      storage?.setItem(key, JSON.stringify(next));
    } catch {
      // Storage full or blocked: the choice holds for this page only.
    }
    current = next;
  };
  let current = read();
  const toggle = (list: string[], value: string, on: boolean) =>
    on ? [...list.filter((v) => v !== value), value] : list.filter((v) => v !== value);
  return {
    attached: () => [...current.attach],
    setAttached: (handle, on) => write({ ...current, attach: toggle(current.attach, handle, on) }),
    scriptPins: () => new Set(current.scriptPins),
    setScriptsAllowed: (pin, on) => write({ ...current, scriptPins: toggle(current.scriptPins, pin, on) }),
  };
}
