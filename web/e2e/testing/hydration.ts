import type { Locator } from "playwright-core";

/**
 * Resolves once React has hydrated the element (its props are attached to the DOM node). A page's forms
 * are plain HTML until then: a click on submit before hydration sends the form natively (a GET of the same
 * page) instead of through the page's handler, which a slow machine makes likely right after `goto`.
 */
export async function hydrated(locator: Locator): Promise<void> {
  const element = await locator.elementHandle();
  await locator
    .page()
    .waitForFunction(
      (el) => el !== null && Object.keys(el).some((key) => key.startsWith("__reactProps$")),
      element,
    );
}
