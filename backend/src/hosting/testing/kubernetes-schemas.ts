/**
 * Checks a Kubernetes object against the official OpenAPI schemas, offline: kubernetes-models' validators
 * (compiled from Kubernetes 1.36's schemas: types, required fields, formats, enums) and, because those
 * schemas let unknown fields through, @kubernetes/client-node's models (generated from the same API
 * document): a field the models do not carry is one the API server drops or, under strict field
 * validation, refuses — a typo that would otherwise pass unnoticed.
 */
import { dumpYaml, loadYaml } from "@kubernetes/client-node";
import { parse } from "yaml";

interface KubeObject {
  apiVersion?: unknown;
  kind?: unknown;
  [key: string]: unknown;
}

type Validating = new (data: unknown) => { validate(): void };

/** What is wrong with `object` (empty when it validates), each `<kind>/<name>: <problem>`. */
export async function kubernetesSchemaProblems(object: KubeObject): Promise<string[]> {
  const { apiVersion, kind } = object;
  const name = `${String(kind)}/${String((object.metadata as { name?: unknown } | undefined)?.name)}`;
  if (typeof apiVersion !== "string" || typeof kind !== "string") return [`${name}: apiVersion and kind required`];
  let Model: Validating | undefined;
  try {
    const module = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<string, Validating>;
    Model = module[kind];
  } catch {
    // No such file: the API has no such kind at this version.
  }
  if (!Model) return [`${name}: ${apiVersion} has no kind ${kind} (Kubernetes 1.36 schemas)`];
  const problems: string[] = [];
  try {
    new Model(object).validate();
  } catch (error) {
    problems.push(`${name}: ${(error as Error).message}`);
  }
  const known = parse(dumpYaml(loadYaml(JSON.stringify(object)))) as unknown;
  for (const path of leafPaths(object)) {
    if (!leafPaths(known).has(path)) problems.push(`${name}: unknown field ${path}`);
  }
  return problems;
}

/** `a.b[0].c=<value>` for every leaf of `value`, so a dropped field and a changed value both show. */
function leafPaths(value: unknown, at = "", into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item, i) => leafPaths(item, `${at}[${i}]`, into));
  else if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) into.add(`${at}={}`);
    for (const [key, item] of entries) leafPaths(item, at ? `${at}.${key}` : key, into);
  } else into.add(`${at}=${JSON.stringify(value)}`);
  return into;
}
