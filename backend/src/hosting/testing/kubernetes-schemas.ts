/**
 * Validation of Kubernetes objects against the official OpenAPI schemas of Kubernetes 1.36, compiled into
 * the `kubernetes-models` package (5.1.0; no download at test time). Its checks are the schemas' own:
 * types, required fields, enums, formats (quantities, int-or-string). Unknown fields are not refused by the
 * schemas; the driver's typed objects cannot carry any (the client drops what its models do not know), and
 * the tests check what arrives at the API server.
 */

export interface SchemaProblem {
  kind: string;
  name: string;
  message: string;
}

/** The model class of `apiVersion`/`kind` (`apps/v1` StatefulSet → kubernetes-models/apps/v1). */
async function modelOf(apiVersion: string, kind: string) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const module = (await import(
    group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`
  )) as Record<string, new (data: unknown) => { validate(): void }>;
  const model = module[kind];
  if (!model) throw new Error(`kubernetes-models has no ${kind} in ${apiVersion}`);
  return model;
}

/** The schema problems of `object` (an empty list when it is valid). */
export async function schemaProblems(object: Record<string, unknown>): Promise<SchemaProblem[]> {
  const kind = String(object.kind ?? "");
  const name = String((object.metadata as { name?: unknown } | undefined)?.name ?? "");
  if (!object.apiVersion || !kind) return [{ kind, name, message: "apiVersion and kind are required" }];
  const Model = await modelOf(String(object.apiVersion), kind);
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return [{ kind, name, message: err instanceof Error ? err.message : String(err) }];
  }
}

/** The problems of every object, in order. */
export async function allSchemaProblems(objects: Record<string, unknown>[]): Promise<SchemaProblem[]> {
  return (await Promise.all(objects.map(schemaProblems))).flat();
}
