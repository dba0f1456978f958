/** The TypeScript source of an OpenAPI 3.x document's types (`paths`, `components`, `operations`). */
export function openApiTypes(document: Record<string, unknown>): Promise<string>;
