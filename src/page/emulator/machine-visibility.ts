import type { EventLog } from "../../log";
import { createSerialQueue, messageOf } from "../../platform";
import type { Guest } from "./boot";

/**
 * A machine nobody sees does not run. A docs page may hold ten embeds and a reader may leave a
 * playground open in a background tab: each is a whole emulator, and an idle guest still wakes
 * its emulator many times a second (docs/performance.md, "Idle"). So the guest's CPU stops
 * while the page is hidden (`document.visibilityState`) or, for an embed, while no part of it
 * is in the reader's viewport (an IntersectionObserver on the embed; inside an iframe its root
 * is the top page's viewport), and runs again when seen, with this page's clock given on its
 * control line (machine-worker.ts `resume`). The terminal keeps its screen meanwhile, and what
 * a reader types while paused waits in the serial line until the guest runs.
 *
 * What stops too: the guest's timers and what it was running (a download, a long command),
 * which continue where they were when seen again; the page's side of a connection keeps its
 * own timers, so a long pause can end a guest's connection.
 */
export interface MachineSight {
  /** Whether the guest is paused because nobody sees it. */
  readonly paused: boolean;
  /** Resolves once the pause or resume under way is done. */
  settled(): Promise<void>;
  stop(): void;
}

export interface MachineSightOptions {
  guest: Guest;
  log: EventLog;
  /** An embed's element: the guest runs only while part of it is in the viewport. Null: the page's visibility alone. */
  view: HTMLElement | null;
}

export function pauseWhileUnseen({ guest, log, view }: MachineSightOptions): MachineSight {
  let inView = true;
  let paused = false;
  const turns = createSerialQueue();
  const unseen = () => document.visibilityState === "hidden" || !inView;
  const update = () => {
    const want = unseen();
    if (want === paused) return;
    paused = want;
    void turns
      .run(() => (want ? pause() : resume()))
      .catch((error: unknown) => {
        log.append({
          kind: "note",
          level: "warning",
          source: "page",
          message: `the guest did not ${want ? "pause" : "resume"}: ${messageOf(error)}`,
        });
      });
  };
  const why = () => (document.visibilityState === "hidden" ? "the page is hidden" : "the embed is out of view");
  const pause = async () => {
    const reason = why();
    await guest.pause();
    log.append({ kind: "note", level: "info", source: "page", message: `paused the guest: ${reason}` });
  };
  const resume = async () => {
    const notFresh = await guest.resume();
    log.append({
      kind: "note",
      level: notFresh === null ? "info" : "warning",
      source: "page",
      message:
        notFresh === null
          ? "resumed the guest with this page's clock"
          : `resumed the guest, but it did not take this page's clock (${notFresh})`,
    });
  };
  document.addEventListener("visibilitychange", update);
  const observer =
    view && typeof IntersectionObserver === "function"
      ? new IntersectionObserver((entries) => {
          const last = entries.at(-1);
          if (!last) return;
          inView = last.isIntersecting;
          update();
        })
      : null;
  if (view) observer?.observe(view);
  update();
  return {
    get paused() {
      return paused;
    },
    settled: () => turns.settled(),
    stop() {
      document.removeEventListener("visibilitychange", update);
      observer?.disconnect();
    },
  };
}
