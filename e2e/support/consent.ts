import { expect, type Page } from "@playwright/test";

/**
 * Answers the card a link's material opens as (src/page/chrome/consent-card.ts): until the
 * reader answers, nothing the link carries is typed, applied or contacted.
 */
export async function answerLinkCard(page: Page, decision: "accept" | "reject" = "accept"): Promise<void> {
  const card = page.getByTestId("consent-card");
  await card.locator(`button[data-decision="${decision}"]`).click({ timeout: 120_000 });
  await expect(card).toBeHidden();
}
