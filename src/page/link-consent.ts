import type { PartKind } from "../trust";
import { readLessonLink } from "./features/lessons/link-params";
import type { PageLink } from "./link";

/**
 * Which parts of the page's link need the reader's consent before they have any effect
 * (docs/decisions/0028): a lesson from a URL or carried in the fragment (a shipped lesson's
 * name is built-in material: it keeps its one click), a share link's replay (rows to type, a
 * policy inline or by reference, an agent to run), and a relay. The org allowlist's `allow-prefix`
 * proposals keep their own card in the Resolver panel.
 */
export function linkConsentParts(link: PageLink): PartKind[] {
  const parts: PartKind[] = [];
  const lesson = readLessonLink(link).request.kind;
  if (lesson === "url" || lesson === "link") parts.push("lesson");
  const { policy, policyRef, scenarios } = link.share;
  if (policy !== null || policyRef !== null || (scenarios ?? "").trim() !== "" || (link.run && link.harness !== null)) parts.push("share");
  if (link.relay !== null) parts.push("relay");
  return parts;
}
