/**
 * The kubernetes driver against the loopback API server (testing/fake-kubernetes.ts) through the official
 * client: the objects it writes (each validated against the Kubernetes 1.36 schemas after every test), the
 * pod's hardening, the NetworkPolicy, names and collisions, the volume through stop and delete, a crash
 * between two creates, the health-gated update, stats, logs and failures. The shared suite is in
 * driver-suite.test.ts.
 */
import { writeFile } from "node:fs/promises";
import { AppsV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { loadBackendConfig } from "../config";
import { createHostingPlatform } from "./index";
import { createKubernetesHostingPlatform, parsePodLog, parseQuantity } from "./kubernetes";
import { kubernetesName, labelValue } from "./kubernetes-objects";
import { testAgentEnvironment } from "./testing/agent-env";
import {
  jsonPatch,
  type KubeObject,
  matchesSelector,
  mergePatch,
  parseLabelSelector,
  strategicMergePatch,
} from "./testing/fake-kubernetes";
import {
  type KubernetesDriverOnFake,
  startKubernetesDriverOnFake,
  TEST_NAMESPACE,
  TEST_SETTINGS,
} from "./testing/kubernetes-driver";
import { allSchemaProblems } from "./testing/kubernetes-schemas";
import { agentServiceName } from "./types";

const NS = TEST_NAMESPACE;
const IMAGE = "agent-platform-agent:2026.4.11";
const NEW_IMAGE = "agent-platform-agent:2026.5.1";
const KINDS = ["statefulsets", "pods", "services", "secrets", "persistentvolumeclaims", "networkpolicies"];

let driver: KubernetesDriverOnFake | null = null;

afterEach(async () => {
  if (!driver) return;
  // Every object the driver wrote in the test, as the API server received it, is valid for Kubernetes 1.36.
  const written = driver.fake.written.map((w) => w.object);
  try {
    expect(await allSchemaProblems(written)).toEqual([]);
  } finally {
    await driver.close();
    driver = null;
  }
});

async function start(...args: Parameters<typeof startKubernetesDriverOnFake>) {
  driver = await startKubernetesDriverOnFake(...args);
  return driver;
}

const input = (agentId: string, env: Record<string, string> = {}, userId = "usr_owner") => ({
  agentId,
  userId,
  name: agentServiceName(agentId),
  image: IMAGE,
  env: { ...testAgentEnvironment(agentId, `token-of-${agentId}`, `password-of-${agentId}`), ...env },
});

/** Every object of the namespace, by kind: what is left in the cluster. */
function everything(fake: KubernetesDriverOnFake["fake"]): Record<string, string[]> {
  return Object.fromEntries(KINDS.map((kind) => [kind, fake.objects(kind, NS).map((o) => o.metadata.name)]));
}

describe("the objects of an agent", () => {
  it("a StatefulSet of one with its state volume, a Secret, a Service and a NetworkPolicy, all labelled", async () => {
    const { fake, platform } = await start();
    const service = await platform.create(input("agt_Objects"));
    const name = kubernetesName("agt_Objects");
    expect(service).toMatchObject({ id: name, name: "agent-objects", image: IMAGE });
    expect(service.url).toMatch(/^http:\/\/127\.\d+\.\d+\.\d+:8080$/);
    // The StatefulSet comes first (at zero replicas), then what it owns, then it is scaled to one.
    const writes = fake.requests
      .filter((r) => r.method !== "GET")
      .map((r) => `${r.method} ${r.path.replace(`/namespaces/${NS}`, "")}`);
    expect(writes).toEqual([
      "POST /apis/apps/v1/statefulsets",
      "POST /api/v1/secrets",
      "POST /api/v1/services",
      "POST /apis/networking.k8s.io/v1/networkpolicies",
      `PATCH /apis/apps/v1/statefulsets/${name}`,
    ]);
    const created = fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/statefulsets"));
    expect(created?.body).toMatchObject({ spec: { replicas: 0 } });
    const scale = fake.requests.find((r) => r.method === "PATCH");
    expect(scale).toMatchObject({
      contentType: "application/merge-patch+json",
      body: { spec: { replicas: 1 } },
    });

    const statefulSet = fake.get("statefulsets", NS, name) as KubeObject;
    const labels = {
      "app.kubernetes.io/managed-by": "agent-platform",
      "app.kubernetes.io/instance": name,
      "app.kubernetes.io/name": "agent-runtime",
      "agent-platform/agent": "agt_Objects",
      "agent-platform/user": "usr_owner",
      "agent-platform/service-name": "agent-objects",
    };
    expect(statefulSet.metadata.labels).toEqual(labels);
    expect(statefulSet.metadata.annotations).toMatchObject({
      "agent-platform/agent-id": "agt_Objects",
      "agent-platform/user-id": "usr_owner",
    });
    expect(statefulSet.spec).toMatchObject({
      serviceName: name,
      selector: {
        matchLabels: { "app.kubernetes.io/managed-by": "agent-platform", "app.kubernetes.io/instance": name },
      },
      updateStrategy: { type: "RollingUpdate" },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
      volumeClaimTemplates: [
        {
          metadata: { name: "state" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "2Gi" } } },
        },
      ],
    });
    for (const kind of ["secrets", "services", "networkpolicies"]) {
      const object = fake.get(kind, NS, name) as KubeObject;
      expect(object.metadata.labels).toEqual(labels);
      // Owned by the StatefulSet: the cluster's garbage collector removes them with it.
      expect(object.metadata.ownerReferences).toEqual([
        {
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          name,
          uid: statefulSet.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    expect(fake.get("services", NS, name)?.spec).toMatchObject({
      type: "ClusterIP",
      ports: [{ name: "http", port: 8080, targetPort: "http", protocol: "TCP" }],
    });
    // The controller made the pod and its claim.
    expect(fake.get("persistentvolumeclaims", NS, `state-${name}-0`)?.metadata.labels).toMatchObject({
      "app.kubernetes.io/instance": name,
    });
  });

  it("hardens the pod: non-root uid 1000, read-only root with a writable state volume and /tmp, no capabilities, no escalation, seccomp RuntimeDefault, no API token", async () => {
    const { fake, platform } = await start({ runtimeClass: "gvisor", imagePullSecret: "registry" });
    const service = await platform.create(input("agt_hard"));
    const pod = (fake.get("statefulsets", NS, service.id) as KubeObject).spec.template.spec;
    expect(pod).toMatchObject({
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      runtimeClassName: "gvisor",
      imagePullSecrets: [{ name: "registry" }],
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        seccompProfile: { type: "RuntimeDefault" },
      },
    });
    const [container] = pod.containers;
    expect(pod.containers).toHaveLength(1);
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.resources).toEqual({
      requests: { cpu: "250m", memory: "768Mi" },
      limits: { cpu: "1", memory: "1536Mi" },
    });
    expect(container.volumeMounts).toEqual([
      { name: "state", mountPath: "/data" },
      { name: "tmp", mountPath: "/tmp" },
      { name: "secrets", mountPath: "/run/secrets/agent-platform", readOnly: true },
    ]);
    expect(container.readinessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/api/status", port: "http" });
    // Without a runtime class the field is absent (the cluster's default runtime).
    const plain = await startKubernetesDriverOnFake();
    try {
      await plain.platform.create(input("agt_plain"));
      expect(
        plain.fake.get("statefulsets", NS, kubernetesName("agt_plain"))?.spec.template.spec.runtimeClassName,
      ).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it("gives the agent its token and admin password as files of its Secret, never as environment variables", async () => {
    const { fake, platform } = await start();
    const service = await platform.create(input("agt_files"));
    await platform.deploy(service.id);
    const statefulSet = fake.get("statefulsets", NS, service.id) as KubeObject;
    const env = Object.fromEntries(
      statefulSet.spec.template.spec.containers[0].env.map((e: KubeObject) => [e.name, e.value]),
    );
    expect(env).toMatchObject({
      OPENCLAW_GATEWAY_TOKEN_FILE: "/run/secrets/agent-platform/OPENCLAW_GATEWAY_TOKEN",
      WRAPPER_ADMIN_PASSWORD_FILE: "/run/secrets/agent-platform/WRAPPER_ADMIN_PASSWORD",
      AGENT_ID: "agt_files",
      HOME: "/data",
    });
    expect(env.OPENCLAW_GATEWAY_TOKEN).toBeUndefined();
    expect(env.WRAPPER_ADMIN_PASSWORD).toBeUndefined();
    // Neither value appears anywhere in the StatefulSet, the pod or the Service.
    for (const object of [
      statefulSet,
      fake.get("pods", NS, `${service.id}-0`),
      fake.get("services", NS, service.id),
    ]) {
      expect(JSON.stringify(object)).not.toContain("token-of-agt_files");
      expect(JSON.stringify(object)).not.toContain("password-of-agt_files");
    }
    expect(fake.secretFiles(NS, `${service.id}-0`)).toEqual({
      "/run/secrets/agent-platform/OPENCLAW_GATEWAY_TOKEN": "token-of-agt_files",
      "/run/secrets/agent-platform/WRAPPER_ADMIN_PASSWORD": "password-of-agt_files",
    });
    expect(statefulSet.spec.template.spec.volumes).toContainEqual({
      name: "secrets",
      secret: {
        secretName: service.id,
        defaultMode: 0o440,
        items: [
          { key: "OPENCLAW_GATEWAY_TOKEN", path: "OPENCLAW_GATEWAY_TOKEN" },
          { key: "WRAPPER_ADMIN_PASSWORD", path: "WRAPPER_ADMIN_PASSWORD" },
        ],
      },
    });

    // A new token reaches the Secret and rolls the pod (the template carries the Secret's hash).
    const firstPod = fake.get("pods", NS, `${service.id}-0`)?.metadata.uid;
    await platform.setEnv(service.id, testAgentEnvironment("agt_files", "token-two", "password-two"));
    await platform.deploy(service.id);
    expect(
      fake.secretFiles(NS, `${service.id}-0`)["/run/secrets/agent-platform/OPENCLAW_GATEWAY_TOKEN"],
    ).toBe("token-two");
    expect(fake.get("pods", NS, `${service.id}-0`)?.metadata.uid).not.toBe(firstPod);
  });

  it("NetworkPolicy: ingress only from the platform's pods, egress only to the backend and DNS; the public internet only for a plan that opts in", async () => {
    const { fake, platform } = await start({ internetPlans: ["pro"] });
    const service = await platform.create(input("agt_net", { AGENT_PLAN: "solo" }));
    const policy = fake.get("networkpolicies", NS, service.id) as KubeObject;
    const platformNamespace = { matchLabels: { "kubernetes.io/metadata.name": "agent-platform" } };
    expect(policy.spec).toEqual({
      podSelector: {
        matchLabels: {
          "app.kubernetes.io/managed-by": "agent-platform",
          "app.kubernetes.io/instance": service.id,
        },
      },
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          from: [
            {
              namespaceSelector: platformNamespace,
              podSelector: { matchLabels: { "app.kubernetes.io/part-of": "agent-platform" } },
            },
          ],
          ports: [{ protocol: "TCP", port: 8080 }],
        },
      ],
      egress: [
        {
          to: [
            {
              namespaceSelector: platformNamespace,
              podSelector: {
                matchLabels: {
                  "app.kubernetes.io/part-of": "agent-platform",
                  "app.kubernetes.io/component": "backend",
                },
              },
            },
          ],
          ports: [{ protocol: "TCP", port: 4000 }],
        },
        {
          to: [
            {
              namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
              podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
            },
          ],
          ports: [
            { protocol: "UDP", port: 53 },
            { protocol: "TCP", port: 53 },
          ],
        },
      ],
    });
    // The agent's pods do not carry the platform's labels (they are not "platform pods").
    expect(
      fake.get("pods", NS, `${service.id}-0`)?.metadata.labels["app.kubernetes.io/part-of"],
    ).toBeUndefined();

    // A plan change (setEnv) that opts in adds the public internet, never private ranges or metadata.
    await platform.setEnv(service.id, { ...input("agt_net").env, AGENT_PLAN: "pro" });
    const open = fake.get("networkpolicies", NS, service.id) as KubeObject;
    expect(open.spec.egress).toHaveLength(3);
    expect(open.spec.egress[2]).toEqual({
      to: [
        {
          ipBlock: {
            cidr: "0.0.0.0/0",
            except: [
              "10.0.0.0/8",
              "172.16.0.0/12",
              "192.168.0.0/16",
              "100.64.0.0/10",
              "169.254.0.0/16",
              "127.0.0.0/8",
            ],
          },
        },
        { ipBlock: { cidr: "::/0", except: ["fc00::/7", "fe80::/10", "::1/128"] } },
      ],
    });
    await platform.setEnv(service.id, { ...input("agt_net").env, AGENT_PLAN: "solo" });
    expect(fake.get("networkpolicies", NS, service.id)?.spec.egress).toHaveLength(2);
  });

  it("refuses to share the platform's namespace", () => {
    expect(() =>
      createKubernetesHostingPlatform({
        namespace: "agent-platform",
        platformNamespace: "agent-platform",
        platformPodLabels: {},
        backendPodLabels: {},
        backendPort: 4000,
        internetPlans: [],
        volumeSize: "1Gi",
        cpuRequest: "1",
        cpuLimit: "1",
        memoryRequest: "1Gi",
        memoryLimit: "1Gi",
      }),
    ).toThrow(/KUBERNETES_NAMESPACE must differ/);
  });
});

describe("names", () => {
  it("are DNS-1123 labels of at most 52 characters (room for the pods' revision label), and differ by a hash", () => {
    const ids = [
      "agt_one",
      "agt_ONE",
      "agt_o.n.e",
      `agt_${"x".repeat(200)}`,
      "agt_",
      "___",
      "agt_Ünïcödé 🙂",
    ];
    const names = ids.map(kubernetesName);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(name.length).toBeLessThanOrEqual(52);
      expect(`${name}-0`.length).toBeLessThanOrEqual(63);
    }
    expect(new Set(names).size).toBe(ids.length);
    expect(kubernetesName("agt_one")).toBe(kubernetesName("agt_one"));
    expect(kubernetesName("agt_one")).toMatch(/^agent-one-[0-9a-f]{10}$/);
    // Label values: kept when valid, else a readable part and a hash.
    expect(labelValue("usr_abc-1.2")).toBe("usr_abc-1.2");
    expect(labelValue("a@b.c")).toMatch(/^a-b\.c-[0-9a-f]{10}$/);
    expect(labelValue(`-${"y".repeat(80)}-`)).toMatch(/^y+-[0-9a-f]{10}$/);
  });

  it("a collision: two agents whose ids read alike get their own objects; a name that is not the agent's is refused", async () => {
    const { fake, platform } = await start();
    // agentServiceName gives both "agent-team-one".
    expect(agentServiceName("agt_Team.One")).toBe(agentServiceName("agt_team_one"));
    const first = await platform.create(input("agt_Team.One", {}, "usr_a"));
    const second = await platform.create(input("agt_team_one", {}, "usr_b"));
    expect(first.id).not.toBe(second.id);
    expect(fake.objects("statefulsets", NS)).toHaveLength(2);
    expect(fake.secretFiles(NS, `${first.id}-0`)["/run/secrets/agent-platform/OPENCLAW_GATEWAY_TOKEN"]).toBe(
      "token-of-agt_Team.One",
    );
    expect(fake.secretFiles(NS, `${second.id}-0`)["/run/secrets/agent-platform/OPENCLAW_GATEWAY_TOKEN"]).toBe(
      "token-of-agt_team_one",
    );
    // By agent id each finds its own; by the shared name alone neither is guessed.
    expect((await platform.find({ name: "agent-team-one", agentId: "agt_Team.One" }))?.id).toBe(first.id);
    expect((await platform.find({ name: "agent-team-one", agentId: "agt_team_one" }))?.id).toBe(second.id);
    expect(await platform.find({ name: "agent-team-one" })).toBeNull();

    // An object of the agent's name that is not its own (another tool's, or a hash collision) is left alone.
    const client = new KubeConfig();
    client.loadFromString(fake.kubeconfig);
    const foreign = kubernetesName("agt_foreign");
    await client.makeApiClient(AppsV1Api).createNamespacedStatefulSet({
      namespace: NS,
      body: {
        metadata: { name: foreign, labels: { app: "other" } },
        spec: {
          replicas: 0,
          serviceName: foreign,
          selector: { matchLabels: { app: "other" } },
          template: {
            metadata: { labels: { app: "other" } },
            spec: { containers: [{ name: "x", image: "busybox" }] },
          },
        },
      },
    });
    await expect(platform.create(input("agt_foreign"))).rejects.toMatchObject({
      reason: "platform",
      message: expect.stringContaining("is not agent agt_foreign's"),
    });
    expect(fake.get("statefulsets", NS, foreign)?.metadata.labels).toEqual({ app: "other" });
    expect(await platform.find({ name: agentServiceName("agt_foreign"), agentId: "agt_foreign" })).toBeNull();
    await expect(platform.remove(foreign)).rejects.toMatchObject({ reason: "not_found" });
    expect(fake.get("statefulsets", NS, foreign)).toBeDefined();
  });
});

describe("the volume and the objects through the lifecycle", () => {
  it("a stopped agent keeps its volume; starting it again mounts the same claim", async () => {
    const { fake, platform } = await start();
    const service = await platform.deploy((await platform.create(input("agt_keep"))).id);
    expect(service.status).toBe("running");
    const claim = fake.get("persistentvolumeclaims", NS, `state-${service.id}-0`);
    expect(claim).toBeDefined();

    await platform.stop(service.id);
    expect(fake.get("pods", NS, `${service.id}-0`)).toBeUndefined();
    expect(fake.get("statefulsets", NS, service.id)?.spec.replicas).toBe(0);
    expect(fake.get("persistentvolumeclaims", NS, `state-${service.id}-0`)?.metadata.uid).toBe(
      claim?.metadata.uid,
    );
    expect(await platform.find({ id: service.id, name: service.name })).toMatchObject({ status: "stopped" });
    expect(fake.agentOf(NS, `${service.id}-0`)).toBeUndefined();

    expect((await platform.deploy(service.id)).status).toBe("running");
    const pod = fake.get("pods", NS, `${service.id}-0`) as KubeObject;
    expect(pod.spec.volumes).toContainEqual({
      name: "state",
      persistentVolumeClaim: { claimName: `state-${service.id}-0` },
    });
    expect(fake.get("persistentvolumeclaims", NS, `state-${service.id}-0`)?.metadata.uid).toBe(
      claim?.metadata.uid,
    );
  });

  it("a deleted agent leaves no object behind, its volume included", async () => {
    const { fake, platform } = await start();
    const kept = await platform.create(input("agt_other"));
    const service = await platform.deploy((await platform.create(input("agt_gone"))).id);
    await platform.remove(service.id);
    const left = everything(fake);
    for (const names of Object.values(left)) expect(names.filter((n) => n.includes(service.id))).toEqual([]);
    // Only the other agent's objects remain.
    expect(left.statefulsets).toEqual([kept.id]);
    expect(left.persistentvolumeclaims).toEqual([`state-${kept.id}-0`]);
    const deletion = fake.requests.find(
      (r) => r.method === "DELETE" && r.path.endsWith(`/statefulsets/${service.id}`),
    );
    expect(deletion?.query.get("propagationPolicy")).toBe("Foreground");
    await expect(platform.remove(service.id)).rejects.toMatchObject({ reason: "not_found" });
  });

  it.each([
    ["an error answer", { status: 500 }],
    ["a dropped connection", { drop: true as const }],
  ])(
    "a crash between two creates (%s) never runs the pod, and the next create completes",
    async (_, failure) => {
      const { fake, platform } = await start();
      fake.failNext("POST", "secrets", failure);
      await expect(platform.create(input("agt_crash"))).rejects.toMatchObject({ reason: "platform" });
      const name = kubernetesName("agt_crash");
      await fake.settled();
      expect(everything(fake)).toMatchObject({
        statefulsets: [name],
        pods: [],
        secrets: [],
        networkpolicies: [],
      });
      expect(fake.get("statefulsets", NS, name)?.spec.replicas).toBe(0);
      // What the platform sees meanwhile: a stopped service (the provision retry then rewrites its environment).
      expect(
        await platform.find({ name: agentServiceName("agt_crash"), agentId: "agt_crash" }),
      ).toMatchObject({
        id: name,
        status: "stopped",
      });
      // A deploy alone cannot invent the Secret's values: it says what to do.
      await expect(platform.deploy(name)).rejects.toMatchObject({
        message: expect.stringContaining("repair the agent"),
      });

      const service = await platform.create(input("agt_crash"));
      expect((await platform.deploy(service.id)).status).toBe("running");
      expect(everything(fake)).toEqual({
        statefulsets: [name],
        pods: [`${name}-0`],
        services: [name],
        secrets: [name],
        persistentvolumeclaims: [`state-${name}-0`],
        networkpolicies: [name],
      });
    },
  );

  it("a crash between two creates is cleaned up by the next remove, and repaired by setEnv and deploy", async () => {
    const { fake, platform } = await start();
    fake.failNext("POST", "services");
    await expect(platform.create(input("agt_half"))).rejects.toMatchObject({ reason: "platform" });
    const name = kubernetesName("agt_half");
    expect(fake.objects("secrets", NS).map((o) => o.metadata.name)).toEqual([name]);
    await platform.remove(name);
    expect(Object.values(everything(fake)).flat()).toEqual([]);

    // The provisioning job's retry: find, setEnv (writes what is missing), deploy.
    fake.failNext("POST", "networkpolicies");
    await expect(platform.create(input("agt_half"))).rejects.toMatchObject({ reason: "platform" });
    const found = await platform.find({ name: agentServiceName("agt_half"), agentId: "agt_half" });
    await platform.setEnv(found?.id as string, input("agt_half").env);
    expect((await platform.deploy(name)).status).toBe("running");
    expect(fake.get("networkpolicies", NS, name)).toBeDefined();
  });
});

describe("status, restart and update", () => {
  it("a crashed pod reads crashed with the kubelet's reason; deploy (repair) replaces it, restart rolls a running one", async () => {
    const { fake, platform } = await start();
    const service = await platform.deploy((await platform.create(input("agt_crashy"))).id);
    await fake.crashPod(NS, `${service.id}-0`, { oomKilled: true });
    const crashed = await platform.find({ id: service.id, name: service.name });
    expect(crashed).toMatchObject({ status: "crashed", metadata: { restarts: 1, ready: false } });
    expect(String(crashed?.metadata.reason)).toContain("CrashLoopBackOff");
    // The StatefulSet controller would wait on the broken pod forever: deploy deletes it.
    const before = fake.get("pods", NS, `${service.id}-0`)?.metadata.uid;
    expect((await platform.deploy(service.id)).status).toBe("running");
    const after = fake.get("pods", NS, `${service.id}-0`)?.metadata.uid;
    expect(after).not.toBe(before);

    await platform.restart(service.id);
    const restarted = await platform.deploy(service.id);
    expect(restarted.status).toBe("running");
    expect(fake.get("pods", NS, `${service.id}-0`)?.metadata.uid).not.toBe(after);
    const restartPatch = fake.requests.find(
      (r) => r.method === "PATCH" && JSON.stringify(r.body).includes("agent-platform/restarted-at"),
    );
    expect(restartPatch?.contentType).toBe("application/merge-patch+json");
  });

  it("update: the new image rolls out once its pod is ready and the shared probe finds it up", async () => {
    const { fake, platform } = await start();
    const service = await platform.deploy((await platform.create(input("agt_update"))).id);
    // The new pod stays Pending until the kubelet goes on: the deploy waits for it on a watch.
    fake.pauseKubelet();
    await platform.setImage(service.id, NEW_IMAGE);
    expect(
      fake.get("statefulsets", NS, service.id)?.metadata.annotations["agent-platform/previous-image"],
    ).toBe(IMAGE);
    const deploying = platform.deploy(service.id);
    await expect
      .poll(() => fake.requests.some((r) => r.path.endsWith("/pods") && r.query.get("watch") === "true"))
      .toBe(true);
    expect(await platform.find({ id: service.id, name: service.name })).toMatchObject({
      status: "deploying",
    });
    fake.resumeKubelet();
    const updated = await deploying;
    expect(updated).toMatchObject({ image: NEW_IMAGE, status: "running" });
    expect(fake.get("pods", NS, `${service.id}-0`)?.spec.containers[0].image).toBe(NEW_IMAGE);
    expect(
      fake.get("statefulsets", NS, service.id)?.metadata.annotations["agent-platform/previous-image"],
    ).toBeUndefined();
    // It waited on the pod's events (a watch from the list's resourceVersion).
    const watch = fake.requests.find((r) => r.path.endsWith("/pods") && r.query.get("watch") === "true");
    expect(watch?.query.get("labelSelector")).toBe(
      `app.kubernetes.io/managed-by=agent-platform,app.kubernetes.io/instance=${service.id}`,
    );
    expect(watch?.query.get("resourceVersion")).toMatch(/^\d+$/);
  });

  it("update: an image that never comes up is rolled back to the previous one, which runs again", async () => {
    const { fake, platform } = await start({ rolloutTimeoutMs: 1_500 });
    const service = await platform.deploy((await platform.create(input("agt_rollback"))).id);
    fake.unpullable.add("agent-platform-agent:broken");
    await platform.setImage(service.id, "agent-platform-agent:broken");
    await expect(platform.deploy(service.id)).rejects.toMatchObject({
      reason: "platform",
      message: expect.stringMatching(/ImagePullBackOff.*rolled back to agent-platform-agent:2026\.4\.11/),
    });
    const after = await platform.find({ id: service.id, name: service.name });
    expect(after).toMatchObject({ image: IMAGE, status: "running" });
    expect(fake.get("pods", NS, `${service.id}-0`)?.spec.containers[0].image).toBe(IMAGE);
  });
});

describe("stats and logs", () => {
  it("stats come from the metrics API when the cluster serves it", async () => {
    const { fake, platform } = await start({}, { metricsApi: true });
    const service = await platform.deploy((await platform.create(input("agt_stats"))).id);
    fake.podMetrics.set(`${NS}/${service.id}-0`, { cpu: "125m", memory: "614400Ki" });
    expect(await platform.stats(service.id)).toEqual({
      cpuPercent: 12.5,
      memoryBytes: 614_400 * 1024,
      memoryLimitBytes: 1536 * 1024 * 1024,
    });
    const call = fake.requests.find((r) => r.path.startsWith("/apis/metrics.k8s.io/"));
    expect(call?.path).toBe(`/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods/${service.id}-0`);
  });

  it("without a metrics API, CPU and memory are not available (null), the limit is the pod spec's", async () => {
    const { platform } = await start();
    const service = await platform.deploy((await platform.create(input("agt_nometrics"))).id);
    expect(await platform.stats(service.id)).toEqual({
      cpuPercent: null,
      memoryBytes: null,
      memoryLimitBytes: 1536 * 1024 * 1024,
    });
    await platform.stop(service.id);
    expect((await platform.stats(service.id)).cpuPercent).toBeNull();
  });

  it("logs: the pod's last lines with their timestamps; a stopped agent has none", async () => {
    const { fake, platform } = await start();
    const service = await platform.deploy((await platform.create(input("agt_logs"))).id);
    fake.appendLog(NS, `${service.id}-0`, "runtime ready", new Date("2026-01-02T03:04:05.123Z"));
    fake.appendLog(NS, `${service.id}-0`, "chat answered", new Date("2026-01-02T03:04:06.5Z"));
    expect(await platform.logs(service.id, 2)).toEqual([
      { ts: "2026-01-02T03:04:05.123Z", stream: "stdout", line: "runtime ready" },
      { ts: "2026-01-02T03:04:06.500Z", stream: "stdout", line: "chat answered" },
    ]);
    const call = fake.requests.find((r) => r.path.endsWith("/log"));
    expect(Object.fromEntries(call?.query ?? [])).toMatchObject({
      container: "agent",
      tailLines: "2",
      timestamps: "true",
    });
    await platform.stop(service.id);
    expect(await platform.logs(service.id, 5)).toEqual([]);
  });

  it("parses quantities and log lines", () => {
    expect(parseQuantity("250m")).toBe(0.25);
    expect(parseQuantity("123456789n")).toBeCloseTo(0.123456789);
    expect(parseQuantity("1536Mi")).toBe(1536 * 2 ** 20);
    expect(parseQuantity("2G")).toBe(2e9);
    expect(parseQuantity("1e3")).toBe(1000);
    expect(parseQuantity("lots")).toBeNull();
    expect(parsePodLog("2026-01-02T03:04:05.999999999Z a b\nnot stamped\n")).toEqual([
      { ts: "2026-01-02T03:04:05.999Z", stream: "stdout", line: "a b" },
      { ts: "", stream: "stdout", line: "not stamped" },
    ]);
  });
});

describe("the backend's configuration", () => {
  it("HOSTING_PROVIDER=kubernetes builds the driver from the variables; it refuses a platform secret by value and sends none", async () => {
    const { fake, kubeconfigPath } = await start();
    const secrets = { INTERNAL_API_KEY: "secret-internal-key-k8s", AI_PROVIDER_KEY: "secret-ai-key-k8s" };
    const config = loadBackendConfig({
      DATABASE_URL: process.env.DATABASE_URL,
      ...secrets,
      HOSTING_PROVIDER: "kubernetes",
      KUBECONFIG: kubeconfigPath,
      KUBERNETES_NAMESPACE: NS,
      KUBERNETES_INTERNET_PLANS: "pro, team",
      KUBERNETES_RUNTIME_CLASS: "kata",
      KUBERNETES_AGENT_MEMORY_LIMIT: "2Gi",
      KUBERNETES_PLATFORM_POD_LABELS: "app=platform,tier=web",
    });
    expect(config.KUBERNETES_PLATFORM_POD_LABELS).toEqual({ app: "platform", tier: "web" });
    const platform = createHostingPlatform(config);
    expect(platform.provider).toBe("kubernetes");
    await expect(
      platform.create(input("agt_conf", { SOME_KEY: secrets.AI_PROVIDER_KEY })),
    ).rejects.toMatchObject({ reason: "platform", message: expect.stringContaining("SOME_KEY") });
    const service = await platform.create(input("agt_conf", { AGENT_PLAN: "team" }));
    const statefulSet = fake.get("statefulsets", NS, service.id) as KubeObject;
    const pod = statefulSet.spec.template.spec;
    expect(pod.runtimeClassName).toBe("kata");
    expect(pod.containers[0].resources.limits.memory).toBe("2Gi");
    expect(fake.get("networkpolicies", NS, service.id)?.spec.ingress[0].from[0].podSelector).toEqual({
      matchLabels: { app: "platform", tier: "web" },
    });
    expect(fake.get("networkpolicies", NS, service.id)?.spec.egress).toHaveLength(3);
    const sent = JSON.stringify(fake.written);
    for (const value of Object.values(secrets)) expect(sent).not.toContain(value);
    expect(() =>
      loadBackendConfig({ DATABASE_URL: process.env.DATABASE_URL, KUBERNETES_PLATFORM_POD_LABELS: "app" }),
    ).toThrow(/KUBERNETES_PLATFORM_POD_LABELS: must be key=value pairs/);
    expect(() =>
      loadBackendConfig({ DATABASE_URL: process.env.DATABASE_URL, KUBERNETES_AGENT_MEMORY_LIMIT: "lots" }),
    ).toThrow(/KUBERNETES_AGENT_MEMORY_LIMIT: must be a Kubernetes quantity/);
  });
});

describe("failures", () => {
  it("credentials the API refuses are not_configured; an unreachable API is a platform error naming it", async () => {
    const { fake, kubeconfigPath: path } = await start();
    const cases: [string, string, object][] = [
      [
        fake.kubeconfig.replace(fake.token, "wrong-token"),
        path,
        { reason: "not_configured", message: expect.stringContaining("Unauthorized") },
      ],
      [
        fake.kubeconfig.replace(fake.server, "https://127.0.0.1:1"),
        path,
        { reason: "platform", message: expect.stringContaining("https://127.0.0.1:1") },
      ],
      [
        "",
        "/nonexistent/kubeconfig",
        { reason: "not_configured", message: expect.stringContaining("/nonexistent/kubeconfig") },
      ],
    ];
    for (const [kubeconfig, kubeconfigPath, failure] of cases) {
      if (kubeconfig) await writeFile(kubeconfigPath, kubeconfig);
      const platform = createKubernetesHostingPlatform({ ...TEST_SETTINGS, kubeconfigPath });
      await expect(platform.ping()).rejects.toMatchObject(failure);
    }
  });
});

describe("the loopback API server answers as the Kubernetes API does", () => {
  it("404, 409 AlreadyExists and Conflict, 422 Invalid and 415 as Status objects, through the official client", async () => {
    const { fake } = await start();
    const config = new KubeConfig();
    config.loadFromString(fake.kubeconfig);
    const core = config.makeApiClient(CoreV1Api);
    const status = async (call: Promise<unknown>) =>
      call.then(
        () => null,
        (err: { code: number; body: string }) => {
          const body = JSON.parse(err.body) as KubeObject;
          return { code: err.code, reason: body.reason, message: body.message };
        },
      );
    expect(await status(core.readNamespacedSecret({ name: "absent", namespace: NS }))).toEqual({
      code: 404,
      reason: "NotFound",
      message: 'secrets "absent" not found',
    });
    const body = { metadata: { name: "one", labels: { a: "b" } }, data: {} };
    await core.createNamespacedSecret({ namespace: NS, body });
    expect(await status(core.createNamespacedSecret({ namespace: NS, body }))).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
    });
    expect(
      await status(core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: "Not_Valid" } } })),
    ).toMatchObject({
      code: 422,
      reason: "Invalid",
    });
    expect(
      await status(
        core.createNamespacedSecret({
          namespace: NS,
          body: { metadata: { name: "two", labels: { a: "-bad-" } } },
        }),
      ),
    ).toMatchObject({
      code: 422,
      message: expect.stringContaining("metadata.labels"),
    });
    const stale = await core.readNamespacedSecret({ name: "one", namespace: NS });
    await core.replaceNamespacedSecret({ name: "one", namespace: NS, body: stale });
    expect(
      await status(core.replaceNamespacedSecret({ name: "one", namespace: NS, body: stale })),
    ).toMatchObject({
      code: 409,
      reason: "Conflict",
    });
    expect(
      await status(
        core.patchNamespacedSecret(
          { name: "one", namespace: NS, body: {} },
          setHeaderOptions("Content-Type", "application/xml"),
        ),
      ),
    ).toMatchObject({ code: 415, reason: "UnsupportedMediaType" });
    // Without a content type the client sends a JSON patch.
    await core.patchNamespacedSecret({
      name: "one",
      namespace: NS,
      body: [{ op: "add", path: "/metadata/labels/c", value: "d" }],
    });
    await core.patchNamespacedSecret(
      { name: "one", namespace: NS, body: { metadata: { labels: { a: null } } } },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
    expect(fake.get("secrets", NS, "one")?.metadata.labels).toEqual({ c: "d" });
    expect(fake.requests.filter((r) => r.method === "PATCH").map((r) => r.contentType)).toEqual([
      "application/xml",
      "application/json-patch+json",
      "application/strategic-merge-patch+json",
    ]);
  });

  it("the schema check refuses what the Kubernetes 1.36 schemas refuse", async () => {
    const pod = (container: KubeObject) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "i", ...container }] },
    });
    expect(await allSchemaProblems([pod({})])).toEqual([]);
    const problems = await allSchemaProblems([
      pod({ securityContext: { runAsNonRoot: "yes" } }),
      pod({ ports: [{ name: "http" }] }),
      { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "s" }, spec: { template: {} } },
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining("runAsNonRoot must be boolean"),
      expect.stringContaining("ports/0 must have required property containerPort"),
      expect.stringContaining("spec must have required property selector"),
    ]);
  });

  it("patches and label selectors behave as specified (RFC 7386, RFC 6902, strategic merge keys)", () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null, e: 4 }, l: [3] })).toEqual({
      a: 1,
      b: { d: 3, e: 4 },
      l: [3],
    });
    expect(
      jsonPatch({ a: [1, 2], b: { c: 1 } }, [
        { op: "add", path: "/a/-", value: 3 },
        { op: "replace", path: "/b/c", value: 2 },
        { op: "remove", path: "/a/0" },
        { op: "test", path: "/b/c", value: 2 },
      ]),
    ).toEqual({ a: [2, 3], b: { c: 2 } });
    expect(() => jsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }])).toThrow(/test failed/);
    const spec = {
      containers: [
        { name: "a", image: "x", env: [{ name: "K", value: "1" }] },
        { name: "b", image: "y" },
      ],
    };
    expect(
      strategicMergePatch(spec, {
        containers: [
          { name: "a", image: "z", env: [{ name: "L", value: "2" }] },
          { name: "b", $patch: "delete" },
        ],
      }),
    ).toEqual({
      containers: [
        {
          name: "a",
          image: "z",
          env: [
            { name: "K", value: "1" },
            { name: "L", value: "2" },
          ],
        },
      ],
    });
    const requirements = parseLabelSelector("a=b,c!=d,e in (f, g),h notin (i),j,!k");
    expect(matchesSelector({ a: "b", e: "g", j: "" }, requirements)).toBe(true);
    expect(matchesSelector({ a: "b", e: "g", j: "", k: "x" }, requirements)).toBe(false);
    expect(matchesSelector({ a: "b", c: "d", e: "g", j: "" }, requirements)).toBe(false);
    expect(matchesSelector({ a: "b", e: "g", h: "i", j: "" }, requirements)).toBe(false);
  });
});
