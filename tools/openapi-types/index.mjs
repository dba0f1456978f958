// @ts-check
/**
 * The TypeScript types of an OpenAPI document (`paths`, `components`, `operations`) as openapi-typescript
 * prints them: what a typed client such as openapi-fetch is given. A workspace of its own because
 * openapi-typescript prints through the compiler API of TypeScript 5, which the project's TypeScript 7 no
 * longer has: its TypeScript 5.9 is installed here, beside it, and nowhere else.
 */
import openapiTS, { astToString } from "openapi-typescript";

/** @import { OpenAPI3 } from "openapi-typescript" */

/**
 * The types of the document (index.d.mts states this signature to the workspaces that import it).
 * @param {Record<string, unknown>} document an OpenAPI 3.x document, as a service serves it
 * @returns {Promise<string>}
 */
export async function openApiTypes(document) {
  // The services' documents are zod-openapi's OpenAPI 3.1 objects, a type openapi-typescript does not know.
  const openApi3 = /** @type {OpenAPI3} */ (/** @type {unknown} */ (document));
  return astToString(await openapiTS(openApi3, { silent: true }));
}
