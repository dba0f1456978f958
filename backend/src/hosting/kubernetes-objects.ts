/**
 * The objects the kubernetes driver writes for one agent, as pure functions of the agent and the settings
 * (kubernetes.ts sends them; tests validate them against the Kubernetes OpenAPI schemas):
 * - a StatefulSet of one replica running the agent image, with its state volume from a volumeClaimTemplate
 *   (kept when scaled to zero, deleted with the StatefulSet);
 * - a Secret holding the agent's secrets (gateway token, wrapper admin password), mounted as files;
 * - a ClusterIP Service in front of the wrapper's port;
 * - a NetworkPolicy: ingress only from the platform's pods, egress only to the backend and DNS (and the
 *   public internet for plans that opt in).
 * Every object carries the owner label (`app.kubernetes.io/managed-by: agent-platform`) and the agent's
 * instance label, so the driver finds its own objects by label after a crash.
 */

import type {
  V1Container,
  V1NetworkPolicy,
  V1NetworkPolicyEgressRule,
  V1ObjectMeta,
  V1OwnerReference,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from "@kubernetes/client-node";
import { sha256Hex } from "@svc/common";
import { AGENT_SECRET_VARIABLES } from "./types";

export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "agent-platform";
export const INSTANCE_LABEL = "app.kubernetes.io/instance";
export const AGENT_LABEL = "agent-platform/agent";
export const USER_LABEL = "agent-platform/user";
export const SERVICE_NAME_LABEL = "agent-platform/service-name";
/** Exact values (labels may have to shorten or hash them). */
export const AGENT_ID_ANNOTATION = "agent-platform/agent-id";
export const USER_ID_ANNOTATION = "agent-platform/user-id";
export const SERVICE_NAME_ANNOTATION = "agent-platform/service-name";
export const PLAN_ANNOTATION = "agent-platform/plan";
/** The agent's own variable names (the template's env also holds the driver's). */
export const ENV_NAMES_ANNOTATION = "agent-platform/env-names";
/** On the pod template: a change of the Secret's values or a restart rolls the pod. */
export const SECRET_HASH_ANNOTATION = "agent-platform/secret-hash";
export const RESTARTED_AT_ANNOTATION = "agent-platform/restarted-at";
/** On the StatefulSet between setImage and the deploy that rolls it out: the image to go back to. */
export const PREVIOUS_IMAGE_ANNOTATION = "agent-platform/previous-image";

export const CONTAINER_NAME = "agent";
export const WRAPPER_PORT = 8080;
/** The image's user (`node`, uid 1000, Dockerfile.agent): it owns the state volume through fsGroup. */
export const AGENT_UID = 1000;
export const STATE_VOLUME = "state";
export const STATE_PATH = "/data";
export const SECRETS_PATH = "/run/secrets/agent-platform";

/** What the driver is told by the configuration (see kubernetes-config.ts). */
export interface KubernetesAgentSettings {
  namespace: string;
  platformNamespace: string;
  platformPodLabels: Record<string, string>;
  backendPodLabels: Record<string, string>;
  /** The backend's container port (BACKEND_PORT): what agents' egress may reach. */
  backendPort: number;
  internetPlans: readonly string[];
  runtimeClass?: string;
  storageClass?: string;
  volumeSize: string;
  cpuRequest: string;
  cpuLimit: string;
  memoryRequest: string;
  memoryLimit: string;
  imagePullSecret?: string;
}

export interface AgentObjectsInput {
  /** The objects' name (`kubernetesName(agentId)`). */
  name: string;
  agentId: string;
  userId?: string | null;
  /** `agentServiceName(agentId)`: how the platform names the service when it has no id. */
  serviceName: string;
  image: string;
  env: Record<string, string>;
}

/** A StatefulSet name must leave room for its pods' `controller-revision-hash` label (≤ 63): 52 at most. */
const MAX_NAME = 52;
const HASH_LENGTH = 10;

/**
 * The objects' name of an agent: `agent-<readable part of the id>-<10 hex of its SHA-256>`, a DNS-1123
 * label of at most 52 characters. Ids that read alike (`agt_Team.One`, `agt_team_one`) differ by the hash.
 */
export function kubernetesName(agentId: string): string {
  const hash = sha256Hex(agentId).slice(0, HASH_LENGTH);
  const room = MAX_NAME - "agent-".length - 1 - HASH_LENGTH;
  const readable = agentId
    .replace(/^agt_/, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, room)
    .replace(/^-+|-+$/g, "");
  return readable ? `agent-${readable}-${hash}` : `agent-${hash}`;
}

const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** `text` as a label value: itself when it is one, else a readable prefix and a hash (exact in annotations). */
export function labelValue(text: string): string {
  if (LABEL_VALUE.test(text)) return text;
  const hash = sha256Hex(text).slice(0, HASH_LENGTH);
  const readable = text
    .replace(/[^-A-Za-z0-9_.]+/g, "-")
    .slice(0, 63 - 1 - HASH_LENGTH)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
  return readable ? `${readable}-${hash}` : hash;
}

/** The labels that select one agent's pods (and find its objects). */
export function selectorLabels(name: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [INSTANCE_LABEL]: name };
}

/** `key=value,…` of `labels`, for list and watch calls. */
export function labelSelector(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
}

function agentLabels(input: AgentObjectsInput): Record<string, string> {
  return {
    "app.kubernetes.io/name": "agent-runtime",
    ...selectorLabels(input.name),
    [AGENT_LABEL]: labelValue(input.agentId),
    ...(input.userId ? { [USER_LABEL]: labelValue(input.userId) } : {}),
    [SERVICE_NAME_LABEL]: labelValue(input.serviceName),
  };
}

function metadata(input: AgentObjectsInput, owner?: V1OwnerReference): V1ObjectMeta {
  return {
    name: input.name,
    labels: agentLabels(input),
    annotations: {
      [AGENT_ID_ANNOTATION]: input.agentId,
      ...(input.userId ? { [USER_ID_ANNOTATION]: input.userId } : {}),
      [SERVICE_NAME_ANNOTATION]: input.serviceName,
    },
    ...(owner ? { ownerReferences: [owner] } : {}),
  };
}

/** The agent's variables that go into its Secret (files), and the rest (plain environment). */
export function splitEnvironment(env: Record<string, string>): {
  plain: Record<string, string>;
  secret: Record<string, string>;
} {
  const plain: Record<string, string> = {};
  const secret: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if ((AGENT_SECRET_VARIABLES as readonly string[]).includes(name)) secret[name] = value;
    else plain[name] = value;
  }
  return { plain, secret };
}

/** What a change of the Secret's values changes in the pod template (so the pod is rolled). */
export function secretHash(secret: Record<string, string>): string {
  const entries = Object.entries(secret).sort(([a], [b]) => a.localeCompare(b));
  return sha256Hex(JSON.stringify(entries)).slice(0, 16);
}

/** The StatefulSet every other object belongs to (the cluster's garbage collector removes them with it). */
export function ownerReference(statefulSet: { name: string; uid: string }): V1OwnerReference {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    name: statefulSet.name,
    uid: statefulSet.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function secretObject(input: AgentObjectsInput, owner?: V1OwnerReference): V1Secret {
  const { secret } = splitEnvironment(input.env);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: metadata(input, owner),
    type: "Opaque",
    data: Object.fromEntries(
      Object.entries(secret).map(([key, value]) => [key, Buffer.from(value, "utf8").toString("base64")]),
    ),
  };
}

export function serviceObject(input: AgentObjectsInput, owner?: V1OwnerReference): V1Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(input, owner),
    spec: {
      type: "ClusterIP",
      selector: selectorLabels(input.name),
      ports: [{ name: "http", protocol: "TCP", port: WRAPPER_PORT, targetPort: "http" }],
    },
  };
}

/** IPv4 and IPv6 ranges an agent on an internet plan still may not reach (cluster, private, metadata). */
const NOT_INTERNET_V4 = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "169.254.0.0/16",
  "127.0.0.0/8",
];
const NOT_INTERNET_V6 = ["fc00::/7", "fe80::/10", "::1/128"];

export function networkPolicyObject(
  input: AgentObjectsInput,
  settings: KubernetesAgentSettings,
  owner?: V1OwnerReference,
): V1NetworkPolicy {
  const platformNamespace = { matchLabels: { "kubernetes.io/metadata.name": settings.platformNamespace } };
  const egress: V1NetworkPolicyEgressRule[] = [
    {
      to: [{ namespaceSelector: platformNamespace, podSelector: { matchLabels: settings.backendPodLabels } }],
      ports: [{ protocol: "TCP", port: settings.backendPort }],
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
  ];
  const plan = input.env.AGENT_PLAN;
  if (plan && settings.internetPlans.includes(plan)) {
    egress.push({
      to: [
        { ipBlock: { cidr: "0.0.0.0/0", except: NOT_INTERNET_V4 } },
        { ipBlock: { cidr: "::/0", except: NOT_INTERNET_V6 } },
      ],
    });
  }
  const meta = metadata(input, owner);
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { ...meta, annotations: { ...meta.annotations, [PLAN_ANNOTATION]: plan ?? "" } },
    spec: {
      podSelector: { matchLabels: selectorLabels(input.name) },
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          // `from` on the wire (the client renames the field, a reserved word in its generator)
          _from: [
            {
              namespaceSelector: platformNamespace,
              podSelector: { matchLabels: settings.platformPodLabels },
            },
          ],
          ports: [{ protocol: "TCP", port: WRAPPER_PORT }],
        },
      ],
      egress,
    },
  };
}

function agentContainer(input: AgentObjectsInput, settings: KubernetesAgentSettings): V1Container {
  const { plain, secret } = splitEnvironment(input.env);
  const httpGet = (path: string) => ({ path, port: "http" });
  return {
    name: CONTAINER_NAME,
    image: input.image,
    imagePullPolicy: "IfNotPresent",
    ports: [{ name: "http", containerPort: WRAPPER_PORT, protocol: "TCP" }],
    env: [
      ...Object.entries(plain).map(([name, value]) => ({ name, value })),
      // Secrets as files only: the wrapper reads `<VAR>_FILE` (wrapper/src/config.ts).
      ...Object.keys(secret).map((name) => ({ name: `${name}_FILE`, value: `${SECRETS_PATH}/${name}` })),
      // The root filesystem is read-only: home is the state volume.
      { name: "HOME", value: STATE_PATH },
    ],
    resources: {
      requests: { cpu: settings.cpuRequest, memory: settings.memoryRequest },
      limits: { cpu: settings.cpuLimit, memory: settings.memoryLimit },
    },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: AGENT_UID,
      runAsGroup: AGENT_UID,
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
    volumeMounts: [
      { name: STATE_VOLUME, mountPath: STATE_PATH },
      { name: "tmp", mountPath: "/tmp" },
      { name: "secrets", mountPath: SECRETS_PATH, readOnly: true },
    ],
    // The wrapper answers /api/status as soon as it listens; /healthz is the runtime's, through its proxy.
    startupProbe: {
      httpGet: httpGet("/api/status"),
      periodSeconds: 5,
      timeoutSeconds: 5,
      failureThreshold: 60,
    },
    readinessProbe: {
      httpGet: httpGet("/healthz"),
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 3,
    },
    livenessProbe: {
      httpGet: httpGet("/api/status"),
      periodSeconds: 20,
      timeoutSeconds: 5,
      failureThreshold: 3,
    },
  };
}

export interface StatefulSetOptions {
  replicas: number;
  /** The pod template's restart stamp (kept across updates so an update alone does not restart). */
  restartedAt?: string;
}

export function statefulSetObject(
  input: AgentObjectsInput,
  settings: KubernetesAgentSettings,
  options: StatefulSetOptions,
): V1StatefulSet {
  const meta = metadata(input);
  const labels = agentLabels(input);
  const { secret } = splitEnvironment(input.env);
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: {
      ...meta,
      annotations: { ...meta.annotations, [ENV_NAMES_ANNOTATION]: Object.keys(input.env).join(",") },
    },
    spec: {
      replicas: options.replicas,
      serviceName: input.name,
      selector: { matchLabels: selectorLabels(input.name) },
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate" },
      // Stopping (replicas 0) keeps the state volume; deleting the StatefulSet deletes it.
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
      revisionHistoryLimit: 2,
      template: {
        metadata: {
          labels,
          annotations: {
            [SECRET_HASH_ANNOTATION]: secretHash(secret),
            ...(options.restartedAt ? { [RESTARTED_AT_ANNOTATION]: options.restartedAt } : {}),
          },
        },
        spec: {
          // An agent gets no Kubernetes API credentials and no other services' addresses in its environment.
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          ...(settings.runtimeClass ? { runtimeClassName: settings.runtimeClass } : {}),
          ...(settings.imagePullSecret ? { imagePullSecrets: [{ name: settings.imagePullSecret }] } : {}),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: AGENT_UID,
            runAsGroup: AGENT_UID,
            fsGroup: AGENT_UID,
            fsGroupChangePolicy: "OnRootMismatch",
            seccompProfile: { type: "RuntimeDefault" },
          },
          terminationGracePeriodSeconds: 30,
          containers: [agentContainer(input, settings)],
          volumes: [
            { name: "tmp", emptyDir: { sizeLimit: "512Mi" } },
            {
              name: "secrets",
              secret: {
                secretName: input.name,
                // Read by the image's user through fsGroup; nobody writes it.
                defaultMode: 0o440,
                items: Object.keys(secret).map((key) => ({ key, path: key })),
              },
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: STATE_VOLUME, labels: selectorLabels(input.name) },
          spec: {
            accessModes: ["ReadWriteOnce"],
            ...(settings.storageClass ? { storageClassName: settings.storageClass } : {}),
            resources: { requests: { storage: settings.volumeSize } },
          },
        },
      ],
    },
  };
}

/** The name of an agent's state volume claim (from the volumeClaimTemplate, ordinal 0). */
export function stateClaimName(name: string): string {
  return `${STATE_VOLUME}-${name}-0`;
}
