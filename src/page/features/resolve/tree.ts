import { displayText, type EventLog, type EventOf, type LogEvent } from "../../../log";
import { formatBytes, h, replaceChildren } from "../../chrome/dom";

type Step = EventOf<"resolver.step">;
type Run = EventOf<"resolver.run">;
type Lint = EventOf<"resolver.lint">;

const TONE_COLOR = { ok: "var(--ok)", refused: "var(--refused)", warn: "var(--warn)" } as const;

export interface ResolverTreeView {
  readonly element: HTMLElement;
  /** The run shown (the latest started), or null before any. */
  readonly run: string | null;
}

/**
 * The Resolver panel's tree of the latest run: one node per `resolver.step`, placed
 * under its `parent` as the steps arrive, with its verdict, cache state and pin; a progress
 * bar from `resolver.run`; the run's lints. Rendered from the log only (one log, many
 * views); refs and reasons come from harness authors and servers, so they are text nodes.
 */
export function createResolverTree(log: EventLog): ResolverTreeView {
  const progress = h("progress", { attrs: { max: "1", value: "0", "aria-label": "Resolve progress", "data-testid": "resolve-progress" } });
  const status = h(
    "span",
    { class: "counters", attrs: { "aria-live": "polite", "data-testid": "resolve-status" } },
    "nothing resolved yet",
  );
  const tree = h("ul", {
    role: "tree",
    attrs: { "aria-label": "Harness resources", "data-testid": "resolve-tree", style: "list-style: none; margin: 4px 0; padding: 0" },
  });
  const lints = h("ul", { attrs: { "aria-label": "Lints", "data-testid": "resolve-lints", style: "margin: 4px 0; padding-left: 18px" } });
  const element = h(
    "div",
    { attrs: { style: "max-height: 40vh; overflow: auto" } },
    h("div", { attrs: { style: "display: flex; gap: 8px; align-items: center" } }, progress, status),
    tree,
    lints,
  );

  let run: string | null = null;
  const nodes = new Map<number, { li: HTMLLIElement; label: HTMLElement; children: HTMLUListElement }>();

  const nodeFor = (id: number) => {
    let node = nodes.get(id);
    if (!node) {
      const label = h("div", { class: "counters" }, `#${id} (waiting)`);
      const children = h("ul", { role: "group", attrs: { style: "list-style: none; margin: 0; padding-left: 16px" } });
      const li = h("li", { role: "treeitem", attrs: { "data-node-id": String(id) } }, label, children);
      node = { li, label, children };
      nodes.set(id, node);
    }
    return node;
  };

  const placed = (id: number) => {
    const node = nodeFor(id);
    if (!node.li.parentElement) tree.appendChild(node.li);
    return node;
  };

  const onStep = (e: Step) => {
    const id = e.id ?? nodes.size;
    const node = nodeFor(id);
    const tone = e.warning ? "warn" : e.allowed ? "ok" : "refused";
    node.li.dataset.code = e.code;
    node.li.dataset.cache = e.cache;
    node.li.dataset.allowed = String(e.allowed);
    node.li.dataset.field = e.field;
    node.li.dataset.resource = e.resource ?? "";
    if (e.url !== undefined) node.li.dataset.url = e.url;
    node.li.setAttribute("aria-label", `${e.field}: ${e.code}`);
    const pin = e.sha256 ?? e.pin;
    const label = h(
      "div",
      {
        title: e.warning ? `${displayText(e.reason)}\nwarning: ${displayText(e.warning)}` : displayText(e.reason),
        attrs: { style: "font-size: 12px; font-family: ui-monospace, monospace" },
      },
      h("span", { attrs: { style: `color: ${TONE_COLOR[tone]}` } }, `${e.allowed ? "✓" : "✗"} ${e.code}`),
      ` ${e.resource ?? e.refKind} ${e.field} `,
      h("span", { attrs: { style: "color: var(--muted)" } }, displayText(e.ref)),
      ` · cache ${e.cache}`,
      pin ? ` · ${pin.slice(0, 12)}…` : "",
      e.bytes > 0 ? ` · ${formatBytes(e.bytes)}` : "",
      e.files !== undefined ? ` · ${e.files} files` : "",
      e.allowed ? "" : h("div", { attrs: { style: "color: var(--refused); padding-left: 1.5em" } }, displayText(e.reason)),
      e.warning ? h("div", { attrs: { style: "color: var(--warn); padding-left: 1.5em" } }, `warning: ${displayText(e.warning)}`) : "",
    );
    node.label.replaceWith(label);
    node.label = label;
    // A child can be recorded before its parent: the parent is then a placeholder at the
    // root, moved (with its children) under its own parent when its step arrives.
    const container = e.parent === null || e.parent === undefined ? tree : placed(e.parent).children;
    if (node.li.parentElement !== container) container.appendChild(node.li);
  };

  const onRun = (e: Run) => {
    if (e.phase === "start") {
      run = e.run;
      nodes.clear();
      replaceChildren(tree);
      replaceChildren(lints);
    }
    if (e.run !== run) return;
    progress.value = e.phase === "done" || e.phase === "failed" ? 1 : e.total > 0 ? e.done / e.total : 0;
    element.dataset.phase = e.phase;
    element.dataset.run = e.run;
    status.textContent = displayText(`${e.phase} · ${e.harness} · ${e.done}/${e.total}${e.message ? ` · ${e.message}` : ""}`);
  };

  const onLint = (e: Lint) => {
    lints.appendChild(
      h(
        "li",
        {
          attrs: {
            "data-code": e.code,
            "data-severity": e.severity,
            style: `color: ${e.severity === "error" ? "var(--warn)" : "var(--muted)"}; font-size: 12px`,
          },
        },
        `lint ${e.severity} ${e.code} ${e.field}: ${e.message}`,
      ),
    );
  };

  const accept = (e: LogEvent) => {
    if (e.kind === "resolver.run") onRun(e);
    else if (e.kind === "resolver.step" && e.run === run) onStep(e);
    else if (e.kind === "resolver.lint" && e.run === run) onLint(e);
  };
  for (const e of log.events()) accept(e);
  log.subscribe(accept);

  return {
    element,
    get run() {
      return run;
    },
  };
}
