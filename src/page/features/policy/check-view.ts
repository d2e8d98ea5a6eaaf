import type { PolicyHolder } from "../../../policy";
import { checkRequest, describeCheck, parseRequestLine } from "../../../policy-tools";
import { h } from "../../chrome/dom";

/** "Would this be allowed?": a request line decided by the current policy, in the page; nothing is sent. */
export function createCheckView(policy: PolicyHolder): { element: HTMLElement; refresh(): void } {
  const input = h("input", {
    class: "policy-check-input",
    attrs: {
      type: "text",
      placeholder: "GET https://api.github.com/zen",
      "aria-label": "Would this be allowed? A request line: METHOD URL",
      spellcheck: "false",
      "data-testid": "policy-check-input",
    },
  });
  const result = h("output", { class: "policy-check-result", attrs: { "aria-live": "polite", "data-testid": "policy-check-result" } });
  const answer = () => {
    const text = input.value.trim();
    result.textContent = "";
    result.removeAttribute("data-code");
    if (text === "") return;
    const parsed = parseRequestLine(text);
    if (!parsed.ok) {
      result.className = "policy-check-result invalid";
      result.textContent = parsed.reason;
      return;
    }
    const checked = checkRequest(policy.current(), parsed.request);
    const { verdict } = checked;
    result.className = `policy-check-result ${verdict.wouldRefuse ? "would-refuse" : verdict.allowed ? "allowed" : "refused"}`;
    result.setAttribute("data-code", verdict.code);
    if (verdict.wouldRefuse) result.setAttribute("data-would-refuse", verdict.wouldRefuse);
    else result.removeAttribute("data-would-refuse");
    for (const line of describeCheck(checked)) result.append(h("div", {}, line));
  };
  input.addEventListener("input", answer);
  const form = h(
    "form",
    { class: "policy-check", attrs: { "data-testid": "policy-check" }, on: { submit: (e) => e.preventDefault() } },
    h("label", {}, "Would this be allowed? ", input),
    result,
  );
  return { element: form, refresh: answer };
}
