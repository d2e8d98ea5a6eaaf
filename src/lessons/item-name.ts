import type { ExpectItem } from "./schema";

/**
 * An expect item by name, in the lesson author's words only: what an embed may tell the page
 * that frames it about an unmet item (docs/decisions/0028, "Nothing of the reader's leaves the
 * frame"). It never carries what the command printed or what the reader typed; the item's
 * detail (`ItemResult.detail`) does, and stays in the frame.
 */
export function expectItemName(item: ExpectItem): string {
  if ("verdict" in item && item.verdict !== undefined)
    return `verdict ${item.verdict}${item.by ? ` by ${item.by}` : ""}${item.target ? ` for ${item.target}` : ""}${item.of === "tunnel" ? " (the tunnel)" : ""}`;
  if ("exit" in item && item.exit !== undefined) return `exit ${item.exit}`;
  if ("output" in item && item.output !== undefined) return "output matching the step's pattern";
  if ("kernel" in item && item.kernel !== undefined) return `kernel ${item.kernel}`;
  if ("dns" in item && item.dns !== undefined) return `dns ${item.dns}`;
  if ("absent" in item && item.absent !== undefined) return `absent ${item.absent}`;
  if ("check" in item && item.check !== undefined) return "the step's check";
  return "an expect item";
}
