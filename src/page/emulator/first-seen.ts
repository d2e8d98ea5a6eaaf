/**
 * Resolves the first time the reader can see `element` (any part of it in the viewport, the
 * page not hidden) or acts on it (a click or a key inside it): an embed loads its playground
 * and starts its machine then, not when the docs page loads (docs/guide.md, "Embedding").
 * Imports nothing, so the placeholder an unseen embed shows (src/page/embed-placeholder.ts)
 * needs no more script than this.
 */
export function firstSeen(element: HTMLElement): Promise<"view" | "click"> {
  return new Promise((resolve) => {
    let inView = false;
    const done = (how: "view" | "click") => {
      observer?.disconnect();
      document.removeEventListener("visibilitychange", check);
      element.removeEventListener("pointerdown", clicked, true);
      element.removeEventListener("keydown", clicked, true);
      resolve(how);
    };
    const check = () => {
      if (inView && document.visibilityState !== "hidden") done("view");
    };
    const clicked = () => done("click");
    const observer =
      typeof IntersectionObserver === "function"
        ? new IntersectionObserver((entries) => {
            inView = entries.at(-1)?.isIntersecting ?? inView;
            check();
          })
        : null;
    // Without an observer there is no telling: start at once.
    if (!observer) {
      resolve("view");
      return;
    }
    observer.observe(element);
    document.addEventListener("visibilitychange", check);
    element.addEventListener("pointerdown", clicked, true);
    element.addEventListener("keydown", clicked, true);
  });
}
