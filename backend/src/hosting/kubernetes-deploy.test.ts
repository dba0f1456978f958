/**
 * The platform's Kubernetes manifests (deploy/kubernetes): every object valid against the official schemas,
 * the configuration they give each service accepted by that service's own config parser, the agents' Role
 * exactly what the kubernetes driver calls, and the labels the driver's NetworkPolicies select on the pods.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { loadSummarizerConfig } from "../../../summarizer/src/config";
import { loadWebConfig } from "../../../web/lib/infra/config";
import { loadBackendConfig } from "../config";
import { kubernetesEnv } from "./kubernetes-config";
import { allSchemaProblems, schemaProblems } from "./testing/kubernetes-schemas";

const DIR = fileURLToPath(new URL("../../../deploy/kubernetes/", import.meta.url));
const HOSTING = fileURLToPath(new URL(".", import.meta.url));
/** The kubernetes driver's source files. */
const driverSource = () =>
  readdirSync(HOSTING)
    .filter((file) => /^kubernetes.*\.ts$/.test(file) && !file.endsWith(".test.ts"))
    .map((file) => readFileSync(`${HOSTING}${file}`, "utf8"))
    .join("\n");

// biome-ignore lint/suspicious/noExplicitAny: manifests are read as plain YAML
type Manifest = Record<string, any>;

const kustomization = parse(readFileSync(`${DIR}kustomization.yaml`, "utf8")) as { resources: string[] };
const files = readdirSync(DIR).filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml");
const objects: Manifest[] = files.flatMap((file) =>
  parseAllDocuments(readFileSync(`${DIR}${file}`, "utf8")).map((doc) => doc.toJS() as Manifest),
);
const find = (kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name) as Manifest;
const deployments = objects.filter((object) => object.kind === "Deployment");

/** The variables the `platform-secrets` Secret carries, from the example the docs tell operators to copy. */
function exampleSecrets(): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const line of readFileSync(`${DIR}secrets.example.env`, "utf8").split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (match) secrets[match[1]] = match[2];
  }
  return secrets;
}

describe("deploy/kubernetes", () => {
  it("lists every manifest in its kustomization, and every object validates against the Kubernetes 1.36 schemas", async () => {
    expect([...kustomization.resources].sort()).toEqual([...files].sort());
    expect(objects.length).toBeGreaterThanOrEqual(20);
    expect(await allSchemaProblems(objects)).toEqual([]);
    // Every namespaced object says where it goes: the kustomization sets no namespace (the Role is elsewhere).
    for (const object of objects.filter((o) => o.kind !== "Namespace"))
      expect([object.kind, object.metadata.namespace]).toEqual([
        object.kind,
        expect.stringMatching(/^(agent-platform|agents)$/),
      ]);
  });

  it("the schema check catches what the real API refuses or drops", async () => {
    const backend = structuredClone(find("Deployment", "backend"));
    backend.spec.replicaz = 2;
    backend.spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem = true;
    backend.spec.replicas = "two";
    expect((await schemaProblems(backend)).map((problem) => problem.message).sort()).toEqual([
      "data/spec/replicas must be integer",
      "unknown field spec.replicaz",
      "unknown field spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem",
    ]);
  });

  it("gives web, backend and summarizer a configuration their own parsers accept, with the Secret's example", () => {
    const config = find("ConfigMap", "platform-config").data as Record<string, string>;
    const env = { ...config, ...exampleSecrets() };
    const backend = loadBackendConfig(env);
    expect(backend.HOSTING_PROVIDER).toBe("kubernetes");
    expect(backend.KUBERNETES_NAMESPACE).toBe(find("Role", "agent-driver").metadata.namespace);
    expect(backend.KUBERNETES_PLATFORM_NAMESPACE).toBe(find("Deployment", "backend").metadata.namespace);
    expect(loadWebConfig(env).FILES_STORAGE).toBe("s3");
    expect(loadSummarizerConfig(env)).toBeTruthy();
  });

  it("runs each service hardened, probed, sized and spread, with an autoscaler and a disruption budget", () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(["backend", "summarizer", "web"]);
    for (const deployment of deployments) {
      const { name } = deployment.metadata;
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      for (const container of pod.containers) {
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        for (const probe of ["readinessProbe", "livenessProbe", "startupProbe"])
          expect(container[probe].httpGet.port, `${name} ${probe}`).toBe("http");
        expect(container.resources.requests).toHaveProperty("memory");
        expect(container.resources.limits).toHaveProperty("memory");
        expect(container.envFrom).toEqual([
          { configMapRef: { name: "platform-config" } },
          { secretRef: { name: "platform-secrets" } },
        ]);
      }
      const service = find("Service", name);
      expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      expect(find("HorizontalPodAutoscaler", name).spec.scaleTargetRef).toEqual({
        apiVersion: "apps/v1",
        kind: "Deployment",
        name,
      });
      expect(find("PodDisruptionBudget", name).spec.selector).toEqual(deployment.spec.selector);
    }
    expect(find("Job", "migrate").spec.template.spec.containers[0].command).toEqual([
      "node",
      "--import",
      "tsx",
      "drizzle/migrate-cli.ts",
    ]);
  });

  it("labels the platform's pods as the driver's NetworkPolicies select them", () => {
    const platformLabels = kubernetesEnv.KUBERNETES_PLATFORM_POD_LABELS.parse(undefined);
    const backendLabels = kubernetesEnv.KUBERNETES_BACKEND_POD_LABELS.parse(undefined);
    for (const deployment of deployments)
      expect(deployment.spec.template.metadata.labels).toMatchObject(platformLabels);
    expect(find("Deployment", "backend").spec.template.metadata.labels).toMatchObject(backendLabels);
    // Agents' pods are denied everything no policy allows.
    expect(find("NetworkPolicy", "default-deny").spec).toEqual({
      podSelector: {},
      policyTypes: ["Ingress", "Egress"],
    });
  });

  it("grants the backend's ServiceAccount exactly the calls the kubernetes driver makes, in the agents' namespace", () => {
    const role = find("Role", "agent-driver");
    const binding = find("RoleBinding", "backend-agent-driver");
    expect(binding.metadata.namespace).toBe(role.metadata.namespace);
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: role.metadata.name,
    });
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "backend", namespace: "agent-platform" },
    ]);
    expect(find("Deployment", "backend").spec.template.spec.serviceAccountName).toBe("backend");
    expect(
      objects.some((object) => object.kind === "ClusterRole" || object.kind === "ClusterRoleBinding"),
    ).toBe(false);
    const granted = new Set<string>();
    for (const rule of role.rules)
      for (const group of rule.apiGroups)
        for (const resource of rule.resources)
          for (const verb of rule.verbs) granted.add(`${group}/${resource} ${verb}`);
    const needed = driverCalls();
    // Owner references with blockOwnerDeletion need the owner's finalizers (OwnerReferencesPermissionEnforcement).
    if (driverSource().includes("blockOwnerDeletion: true"))
      needed.add("apps/statefulsets/finalizers update");
    expect([...granted].sort()).toEqual([...needed].sort());
  });
});

/** `<group>/<resource> <verb>` for every API call in the driver's source. */
function driverCalls(): Set<string> {
  const source = driverSource();
  const verbs: Record<string, string> = {
    create: "create",
    read: "get",
    list: "list",
    patch: "patch",
    replace: "update",
    delete: "delete",
    deleteCollection: "deletecollection",
  };
  const kinds: Record<string, string> = {
    StatefulSet: "apps/statefulsets",
    NetworkPolicy: "networking.k8s.io/networkpolicies",
    Secret: "/secrets",
    Service: "/services",
    PersistentVolumeClaim: "/persistentvolumeclaims",
    Pod: "/pods",
    PodLog: "/pods/log",
    ConfigMap: "/configmaps",
  };
  const calls = new Set<string>();
  for (const [, verb, kind] of source.matchAll(
    /\.(create|read|list|patch|replace|delete|deleteCollection)Namespaced([A-Za-z]+)\(/g,
  )) {
    if (kind === "CustomObject") continue;
    expect(kinds[kind], `a resource for ${kind}`).toBeDefined();
    calls.add(`${kinds[kind]} ${verbs[verb]}`);
  }
  for (const [, verb, group, plural] of source.matchAll(
    /\b(get|list)NamespacedCustomObject\(\s*\{[^}]*group: "([^"]+)"[^}]*plural: "([^"]+)"/g,
  ))
    calls.add(`${group}/${plural} ${verb}`);
  for (const [, resource] of source.matchAll(/\.watch\(\s*`\/api\/v1\/namespaces\/\$\{[^}]+\}\/([a-z]+)`/g))
    calls.add(`/${resource} watch`);
  return calls;
}
