import type { Decider } from "../../../log";
import type { Scenario } from "../../chrome/scenarios";
import type { PageLink } from "../../link";

/**
 * What `?embed=1&scenario=…` asks for (embed mode for docs): off, one row of seed
 * 004's verdict table (by row number or id), or a value that names no row, with a message
 * saying which values are valid. The URL is outside input: it is matched against the known
 * rows and echoed only as plain, shortened text.
 */
export type EmbedRequest = { mode: "off" } | { mode: "scenario"; scenario: Scenario } | { mode: "invalid"; message: string };

const EMBED_ON = new Set(["1", "true"]);
const MAX_ECHO = 40;

export function readEmbedRequest(link: Pick<PageLink, "embed" | "scenario">, scenarios: readonly Scenario[]): EmbedRequest {
  if (!EMBED_ON.has(link.embed ?? "")) return { mode: "off" };
  const raw = link.scenario;
  const value = (raw ?? "").trim();
  if (value === "") return { mode: "invalid", message: `No scenario given: add &scenario= with ${validValues(scenarios)}.` };
  const scenario = /^\d+$/.test(value)
    ? scenarios.find((s) => s.row === Number(value))
    : scenarios.find((s) => s.id === value.toLowerCase());
  if (scenario) return { mode: "scenario", scenario };
  return {
    mode: "invalid",
    message: `scenario=${echo(value)} is not a row of the verdict table: use ${validValues(scenarios)}.`,
  };
}

/** "a row number 1–8 or an id: served, host-not-allowed, …" */
export function validValues(scenarios: readonly Scenario[]): string {
  if (scenarios.length === 0) return "a scenario (this build has none)";
  const rows = scenarios.map((s) => s.row);
  return `a row number ${Math.min(...rows)}–${Math.max(...rows)} or an id: ${scenarios.map((s) => s.id).join(", ")}`;
}

/**
 * The same page without `embed`: everything else (harness, scenario, hash) is kept, except a
 * relay's token — no link the page writes carries one (docs/decisions/0028); the relay itself
 * stays proposed, and the full playground asks for it on its card like any link.
 */
export function fullPlaygroundHref(href: string): string {
  const url = new URL(href);
  url.searchParams.delete("embed");
  const relay = url.searchParams.get("relay");
  if (relay !== null) {
    try {
      const relayUrl = new URL(relay);
      relayUrl.searchParams.delete("token");
      url.searchParams.set("relay", relayUrl.href);
    } catch {
      url.searchParams.delete("relay");
    }
  }
  return url.href;
}

const DECIDER_TEXT: Partial<Record<Decider, string>> = {
  proxy: "the proxy (.net in the design: the page, the only TLS client)",
  kernel: "the kernel (Landlock)",
  design: "the design (the page sets SNI itself)",
  kms: "the KMS (it holds the vault's keys: a read grant gets no key to sign a push)",
};

/** The embed bar's paragraph: who decides, the verdict, and the row's own explanation. */
export function embedExplanation(scenario: Scenario): string {
  const by = DECIDER_TEXT[scenario.expect.by] ?? scenario.expect.by;
  return `Decided by ${by}; verdict ${scenario.expect.code}. ${scenario.explanation}`;
}

/**
 * The explanation line once the row ran: what this run's log recorded (each verdict and who
 * decided), and whether that is what the row expects — never the row's expected text beside
 * another outcome (offline, row 1 gives `upstream-unreadable`, not `served`).
 */
export function ranExplanation(scenario: Scenario, seen: readonly { code: string; by: string }[]): string {
  const expected = `${scenario.expect.code} by ${scenario.expect.by}`;
  if (seen.length === 0)
    return `This run recorded no verdict on the log: see the ${scenario.expect.panel} panel below. Row ${scenario.row} expects ${expected}.`;
  const got = seen.map((s) => `${s.code} by ${s.by}`).join(", ");
  const met = seen.some((s) => s.code === scenario.expect.code && s.by === scenario.expect.by);
  return met
    ? `This run: ${got}, as row ${scenario.row} expects. ${scenario.explanation}`
    : `This run: ${got}, not what row ${scenario.row} expects (${expected}): the ${scenario.expect.panel} panel below shows each decision and its reason.`;
}

/** Outside text shown back to the user: no control characters, bounded length. */
function echo(value: string): string {
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, "");
  return JSON.stringify(clean.length > MAX_ECHO ? `${clean.slice(0, MAX_ECHO)}…` : clean);
}
