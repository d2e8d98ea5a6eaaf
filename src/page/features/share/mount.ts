import { messageOf } from "../../../platform";
import type { FeatureContext } from "../context";
import { replayLink } from "./replay";
import { createReplayPanel } from "./replay-view";
import { followSharedRuns } from "./runs";
import { mountShareButton } from "./share-button";

/**
 * Share links that replay. The share button (./share-button.ts) encodes the harness URL, the
 * policy and the scenarios run so far (./runs.ts), plus the verdict sequence they produced.
 * Opening the link applies the same inputs, runs the same scenarios (./replay.ts), and the
 * Replay panel compares the sender's sequence with the replay's (./replay-view.ts).
 */
export function mount(ctx: FeatureContext): void {
  const runs = followSharedRuns(ctx.log);
  mountShareButton(ctx, runs);
  const { panel, compare } = createReplayPanel(ctx.log);
  ctx.panels.add(panel);
  const done = replayLink(ctx, runs, compare).catch((error: unknown) =>
    ctx.log.append({ kind: "note", level: "error", source: "share link", message: messageOf(error) }),
  );
  ctx.expose("share", { replayed: done, sequence: runs.sequence });
}
