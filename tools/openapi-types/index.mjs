/**
 * The TypeScript types of an OpenAPI document (`paths`, `components`, `operations`) as openapi-typescript
 * prints them: what a typed client such as openapi-fetch is given. A workspace of its own because
 * openapi-typescript prints through the compiler API of TypeScript 5, which the project's TypeScript 7 no
 * longer has: its TypeScript 5.9 is installed here, beside it, and nowhere else.
 */
import openapiTS, { astToString } from "openapi-typescript";

export async function openApiTypes(document) {
  return astToString(await openapiTS(document, { silent: true }));
}
