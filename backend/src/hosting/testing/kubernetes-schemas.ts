/**
 * Validation of Kubernetes objects against the official OpenAPI schemas of Kubernetes 1.36, offline: the
 * validators compiled into `kubernetes-models` 5.1.0 (types, required fields, enums, formats such as
 * quantities and int-or-string) and, because those schemas let unknown fields through, a round trip through
 * @kubernetes/client-node's models (generated from the same API document): a field they do not carry is one
 * the API server drops or, under strict field validation, refuses — a typo in a manifest shows here.
 */
import { dumpYaml, loadYaml } from "@kubernetes/client-node";
import { parse } from "yaml";

export interface SchemaProblem {
  kind: string;
  name: string;
  message: string;
}

/** The model class of `apiVersion`/`kind` (`apps/v1` StatefulSet → kubernetes-models/apps/v1), or null. */
async function modelOf(apiVersion: string, kind: string) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const module = (await import(
    group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`
  ).catch(() => ({}))) as Record<string, new (data: unknown) => { validate(): void }>;
  return module[kind] ?? null;
}

/** The schema problems of `object` (an empty list when it is valid). */
export async function schemaProblems(object: Record<string, unknown>): Promise<SchemaProblem[]> {
  const kind = String(object.kind ?? "");
  const name = String((object.metadata as { name?: unknown } | undefined)?.name ?? "");
  if (!object.apiVersion || !kind) return [{ kind, name, message: "apiVersion and kind are required" }];
  const Model = await modelOf(String(object.apiVersion), kind);
  if (!Model)
    return [{ kind, name, message: `Kubernetes 1.36 has no ${kind} in ${String(object.apiVersion)}` }];
  const problems: SchemaProblem[] = [];
  try {
    new Model(object).validate();
  } catch (err) {
    problems.push({ kind, name, message: err instanceof Error ? err.message : String(err) });
  }
  const known = leafPaths(parse(dumpYaml(loadYaml(JSON.stringify(object)))));
  for (const path of leafPaths(object))
    if (!known.has(path)) problems.push({ kind, name, message: `unknown field ${path}` });
  return problems;
}

/** The problems of every object, in order. */
export async function allSchemaProblems(objects: Record<string, unknown>[]): Promise<SchemaProblem[]> {
  return (await Promise.all(objects.map(schemaProblems))).flat();
}

/** The path of every leaf of `value` (`a.b[0].c`), undefined values left out: what a field is, not its value. */
function leafPaths(value: unknown, at = "", into = new Set<string>()): Set<string> {
  if (value === undefined) return into;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) leafPaths(item, `${at}[${i}]`, into);
  } else if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const entries = Object.entries(value);
    if (entries.length === 0) into.add(at);
    for (const [key, item] of entries) leafPaths(item, at ? `${at}.${key}` : key, into);
  } else into.add(at);
  return into;
}
