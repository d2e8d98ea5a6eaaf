import { encodeSequence } from "../../../log";
import { canonicalJson, DEFAULT_POLICY } from "../../../policy";
import { h, replaceChildren } from "../../chrome/dom";
import type { FeatureContext } from "../context";
import { describeLeftOut, leftOutOfLink } from "./left-out";
import { buildShareUrl, MAX_INLINE_POLICY, packPolicy } from "./link";
import { createPolicyRefForm } from "./policy-ref";
import type { SharedRuns } from "./runs";

/**
 * The top bar's Share button and the link it makes: the harness URL, the policy (inline,
 * deflated, when it differs from the default; by reference when too large, once the sender
 * says where it is published), the acts run so far and the verdict sequence they produced.
 * Beside the link: what it will not replay (commands typed by hand, lesson steps).
 */
export function mountShareButton(ctx: FeatureContext, runs: SharedRuns): void {
  const shareButton = h("button", { id: "share", attrs: { type: "button" } }, "Share");
  const shareOutput = h("input", {
    class: "share-output",
    attrs: { readonly: "", "aria-label": "Share link", tabindex: "-1", hidden: "" },
  });
  const leftOut = h("div", { class: "share-left-out", attrs: { "data-testid": "share-left-out", "aria-live": "polite", hidden: "" } });
  // Where the "publish it, then give its address" form goes when the policy is too large.
  const refSlot = h("div", { attrs: { style: "display: contents" } });
  for (const element of [shareButton, shareOutput, leftOut, refSlot]) ctx.place("share", element);
  const showLink = async (url: string) => {
    shareOutput.value = url;
    shareOutput.hidden = false;
    leftOut.textContent = describeLeftOut(leftOutOfLink(ctx.log.events(), runs.windows));
    leftOut.hidden = leftOut.textContent === "";
    shareOutput.select();
    try {
      await navigator.clipboard?.writeText(url);
    } catch {
      // The link is shown selected in the field either way.
    }
  };
  shareButton.addEventListener("click", () => {
    void (async () => {
      const policyJson = canonicalJson(ctx.policy.current());
      const policy = policyJson === canonicalJson(DEFAULT_POLICY) ? null : policyJson;
      const { orgAllowlist } = ctx.services;
      const state = {
        harness: ctx.harness.value() || ctx.link.harness,
        policy,
        policyRef: null,
        scenarios: [...runs.acts],
        expect: encodeSequence(runs.sequence()),
        // What the sender allows beyond the default travels as a proposal the receiver must accept.
        allowPrefixes: orgAllowlist.entries().filter((e) => !orgAllowlist.defaults().includes(e)),
      };
      replaceChildren(refSlot);
      const packedLength = policy === null ? 0 : (await packPolicy(policy)).length;
      if (policy === null || packedLength <= MAX_INLINE_POLICY) return showLink(await buildShareUrl(ctx.link.href, state));
      // Too large for the link: by reference, once the sender says where it is published.
      const form = createPolicyRefForm({
        policyText: policy,
        packedLength,
        onReference: (policyRef) => void buildShareUrl(ctx.link.href, { ...state, policyRef }).then(showLink),
      });
      replaceChildren(refSlot, form);
    })();
  });
}
