import { h } from "../../chrome/dom";
import { downloadText } from "../../chrome/download";
import { policyReference } from "./link";

/**
 * When the policy is too large to carry in a link ("inline when small, else by hash
 * + URL"), the sender publishes it and the link carries its URL pinned with the sha256 of the
 * exact bytes. This small form offers the bytes to download and takes the URL they now live at.
 */
export function createPolicyRefForm(options: { policyText: string; packedLength: number; onReference(ref: string): void }): HTMLElement {
  const download = h("button", { class: "small", attrs: { type: "button" } }, "Download policy.json");
  download.addEventListener("click", () => {
    downloadText("policy.json", options.policyText, "application/json");
  });
  const url = h("input", {
    attrs: {
      type: "url",
      required: "",
      pattern: "https://.*",
      placeholder: "https://…/policy.json",
      "aria-label": "Where the policy is published",
    },
  });
  const form = h(
    "form",
    { class: "share-policy-ref", attrs: { "data-testid": "share-policy-ref" } },
    h(
      "span",
      {},
      `The policy is too large to carry in the link (${options.packedLength} characters packed). Publish it unchanged at an https URL and the link will carry that URL pinned with its sha256: `,
    ),
    download,
    " ",
    url,
    " ",
    h("button", { class: "small", attrs: { type: "submit" } }, "Make link"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void policyReference(url.value.trim(), options.policyText).then((ref) => {
      options.onReference(ref);
      form.remove();
    });
  });
  return form;
}
