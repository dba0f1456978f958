/**
 * The `kubernetes` hosting driver: each agent is a StatefulSet of one pod (the agent image: wrapper +
 * OpenClaw + permission plugin) with its state volume, Secret, Service and NetworkPolicy
 * (kubernetes-objects.ts), through the official client `@kubernetes/client-node`. Choices:
 * - The service id is the objects' name, `kubernetesName(agentId)`: DNS-safe, at most 52 characters, and
 *   collision-free (a hash of the agent id). Objects that exist under that name but are not this agent's
 *   (owner label, agent-id annotation) are never changed.
 * - Creation order: the StatefulSet first, at zero replicas; then the Secret, Service and NetworkPolicy,
 *   owned by it (ownerReferences: the cluster's garbage collector deletes them with it); replicas 1 last,
 *   so the pod never runs before its NetworkPolicy exists. After a crash between two creates the next
 *   create, setEnv or deploy finds the StatefulSet by name and creates what is missing; `remove` deletes
 *   everything carrying the agent's owner and instance labels, whatever is left.
 * - stop/start scale to 0/1 (the volume claim is kept: `whenScaled: Retain`); `remove` deletes the
 *   StatefulSet (foreground propagation), its objects and its volume claim, and waits until none is left.
 * - setEnv rewrites the pod template (plain variables, the Secret's hash) and the Secret; setImage the
 *   image. The StatefulSet controller rolls the pod. `deploy` makes sure it runs the current template
 *   (scales to 1, restarts a pod that already runs it, deletes an unhealthy one the controller would not
 *   replace), then waits for the pod to be ready (a watch on the agent's pods) and for the shared probe to
 *   report the agent up. A new image that does not get there is rolled back to the previous one.
 * - Status from the StatefulSet and its pod; stats from the metrics API (metrics.k8s.io) when the cluster
 *   serves it, otherwise null values (never made up) beside the memory limit of the pod spec.
 * - The URL is the Service's cluster IP on the wrapper's port: reachable from the platform's pods.
 */
import { existsSync } from "node:fs";
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  NetworkingV1Api,
  Observable,
  type ObservableMiddleware,
  PatchStrategy,
  setHeaderOptions,
  type V1NetworkPolicy,
  type V1ObjectMeta,
  type V1Pod,
  type V1Secret,
  type V1Service,
  type V1StatefulSet,
  Watch,
} from "@kubernetes/client-node";
import { type Clock, systemClock } from "@svc/common";
import { waitForHealthy } from "../runtime/health";
import {
  AGENT_ID_ANNOTATION,
  type AgentObjectsInput,
  CONTAINER_NAME,
  ENV_NAMES_ANNOTATION,
  type KubernetesAgentSettings,
  kubernetesName,
  labelSelector,
  labelValue,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  networkPolicyObject,
  ownerReference,
  PREVIOUS_IMAGE_ANNOTATION,
  RESTARTED_AT_ANNOTATION,
  SECRET_HASH_ANNOTATION,
  SERVICE_NAME_ANNOTATION,
  SERVICE_NAME_LABEL,
  secretObject,
  selectorLabels,
  serviceObject,
  statefulSetObject,
  USER_ID_ANNOTATION,
  WRAPPER_PORT,
} from "./kubernetes-objects";
import { assertAgentEnv } from "./secret-guard";
import {
  type CreateServiceInput,
  type HostedService,
  HostingError,
  type HostingPlatform,
  type ServiceLogLine,
  type ServiceStats,
  type ServiceStatus,
} from "./types";

export interface KubernetesHostingOptions extends KubernetesAgentSettings {
  /** KUBECONFIG: the kubeconfig file (its current context). Unset: the in-cluster service account. */
  kubeconfigPath?: string;
  /** Running inside a cluster (`KUBERNETES_SERVICE_HOST` set): without a kubeconfig, its service account. */
  inCluster?: boolean;
  secretValues?: readonly string[];
  /** Per-call timeout of the API (default 30 s). */
  requestTimeoutMs?: number;
  /** How long `deploy` waits for the pod to be ready (default 5 minutes: an image pull counts). */
  rolloutTimeoutMs?: number;
  /** The shared probe after the pod is ready (PROVISION_HEALTH_POLL_MS / _TIMEOUT_MS). */
  healthPollMs?: number;
  healthTimeoutMs?: number;
  /**
   * Whether `deploy` asks the shared probe (default true). Only a backend that reaches cluster IPs can: a
   * test run from outside the cluster turns it off and relies on the pod's readiness alone.
   */
  probeAgents?: boolean;
  /** How long `stop` and `remove` wait for the pod and the objects to be gone (default 2 minutes). */
  removeTimeoutMs?: number;
  /** Stamps restarts (default: the system clock). */
  clock?: Clock;
}

/** Waiting reasons of a container that will not start without a change (not a crash). */
const FAILED_REASONS = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

type Resource = "StatefulSet" | "Secret" | "Service" | "NetworkPolicy" | "PersistentVolumeClaim" | "Pod";
type Metadata = { metadata?: V1ObjectMeta };

/** The API's Status message of a failed call (the client's own message carries every header). */
function statusMessage(err: ApiException<unknown>): string {
  const body = err.body as { message?: unknown } | string | undefined;
  if (body && typeof body === "object" && typeof body.message === "string") return body.message;
  if (typeof body === "string") {
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === "string") return parsed.message;
    } catch {
      if (body.trim()) return body.trim().slice(0, 300);
    }
  }
  // The client's own message for codes it expects (401): "HTTP-Code: 401\nMessage: Unauthorized…".
  return /\nMessage: (.*)/.exec(err.message)?.[1] ?? `HTTP ${err.code}`;
}

function isApiError(err: unknown, ...codes: number[]): err is ApiException<unknown> {
  return err instanceof ApiException && (codes.length === 0 || codes.includes(err.code));
}

function podReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

/** Why the pod does not run, in the kubelet's words (`ImagePullBackOff: …`), or null. */
export function podProblem(pod: V1Pod | undefined): string | null {
  if (!pod) return null;
  const container = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME);
  const waiting = container?.state?.waiting;
  if (waiting?.reason && waiting.reason !== "ContainerCreating" && waiting.reason !== "PodInitializing")
    return waiting.message ? `${waiting.reason}: ${waiting.message}` : waiting.reason;
  const terminated = container?.state?.terminated ?? container?.lastState?.terminated;
  if (terminated && !container?.ready)
    return `${terminated.reason ?? "Terminated"} (exit code ${terminated.exitCode})`;
  const unschedulable = pod.status?.conditions?.find(
    (c) => c.type === "PodScheduled" && c.status === "False",
  );
  if (unschedulable)
    return `${unschedulable.reason ?? "Unschedulable"}: ${unschedulable.message ?? ""}`.trim();
  return null;
}

/** The platform's vocabulary for an agent's StatefulSet and its pod. */
export function serviceStatus(statefulSet: V1StatefulSet, pod: V1Pod | undefined): ServiceStatus {
  if ((statefulSet.spec?.replicas ?? 0) === 0) return "stopped";
  if (!pod || pod.metadata?.deletionTimestamp) return "deploying";
  if (podReady(pod)) return "running";
  if (pod.status?.phase === "Failed") return "failed";
  const container = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME);
  const waiting = container?.state?.waiting?.reason;
  if (waiting && FAILED_REASONS.has(waiting)) return "failed";
  if (waiting === "CrashLoopBackOff" || (container?.restartCount ?? 0) > 0) return "crashed";
  if (pod.status?.phase === "Pending" || pod.status?.phase === "Running") return "deploying";
  return "unknown";
}

const QUANTITY_SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A resource quantity as a number (`250m` → 0.25, `1536Mi` → bytes), or null when it is not one. */
export function parseQuantity(quantity: string | undefined): number | null {
  const match = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(
    quantity?.trim() ?? "",
  );
  if (!match) return null;
  const value = Number(match[1]) * (QUANTITY_SUFFIX[match[2] ?? ""] ?? Number.NaN);
  return Number.isFinite(value) ? value : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class KubernetesHostingPlatform implements HostingPlatform {
  readonly provider = "kubernetes" as const;
  private client: {
    config: KubeConfig;
    apps: AppsV1Api;
    core: CoreV1Api;
    net: NetworkingV1Api;
    custom: CustomObjectsApi;
    watch: Watch;
  } | null = null;
  private readonly ns: string;
  private readonly clock: Clock;
  private readonly watches = new Set<AbortController>();

  constructor(private readonly options: KubernetesHostingOptions) {
    this.ns = options.namespace;
    this.clock = options.clock ?? systemClock;
    if (options.namespace === options.platformNamespace)
      throw new HostingError(
        "not_configured",
        "KUBERNETES_NAMESPACE must differ from KUBERNETES_PLATFORM_NAMESPACE: agents may not share the platform's namespace",
      );
  }

  // ---- the API ----

  /** The clients, from KUBECONFIG or the in-cluster service account (made on first use). */
  private api() {
    if (this.client) return this.client;
    const config = new KubeConfig();
    const path = this.options.kubeconfigPath;
    try {
      if (path) {
        if (!existsSync(path)) throw new Error(`KUBECONFIG ${path} does not exist`);
        config.loadFromFile(path);
      } else if (this.options.inCluster) {
        config.loadFromCluster();
      } else {
        throw new Error("set KUBECONFIG, or run the backend in the cluster (its service account)");
      }
      if (!config.getCurrentCluster()) throw new Error(`the kubeconfig ${path} has no current cluster`);
    } catch (err) {
      throw new HostingError(
        "not_configured",
        `the Kubernetes API is not configured: ${(err as Error).message}`,
      );
    }
    this.client = {
      config,
      apps: config.makeApiClient(AppsV1Api),
      core: config.makeApiClient(CoreV1Api),
      net: config.makeApiClient(NetworkingV1Api),
      custom: config.makeApiClient(CustomObjectsApi),
      watch: new Watch(config),
    };
    return this.client;
  }

  /** Per-call options: the timeout, and a patch's content type. */
  private callOptions(contentType?: string) {
    const timeoutMs = this.options.requestTimeoutMs ?? 30_000;
    const timeout: ObservableMiddleware = {
      pre: (context) => {
        context.setSignal(AbortSignal.timeout(timeoutMs));
        return new Observable(Promise.resolve(context));
      },
      post: (response) => new Observable(Promise.resolve(response)),
    };
    const base = { middleware: [timeout], middlewareMergeStrategy: "append" as const };
    return contentType ? setHeaderOptions("Content-Type", contentType, base) : base;
  }

  /** Runs one API call, mapping its failure to a HostingError (404 → not_found). */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw this.hostingError(what, err);
    }
  }

  private hostingError(what: string, err: unknown): HostingError {
    if (err instanceof HostingError) return err;
    if (isApiError(err, 404)) return new HostingError("not_found", `${what}: ${statusMessage(err)}`);
    if (isApiError(err, 401, 403))
      return new HostingError(
        "not_configured",
        `${what}: the Kubernetes API refused the backend's credentials (${statusMessage(err)})`,
      );
    if (isApiError(err)) return new HostingError("platform", `${what}: ${statusMessage(err)}`);
    const server = this.client?.config.getCurrentCluster()?.server ?? "the Kubernetes API";
    const reason = err instanceof Error ? err.message : String(err);
    return new HostingError("platform", `${what}: ${server} did not answer (${reason})`);
  }

  /** The object, or null when the API answers 404. */
  private async readOrNull<T>(what: string, read: () => Promise<T>): Promise<T | null> {
    try {
      return await read();
    } catch (err) {
      if (isApiError(err, 404)) return null;
      throw this.hostingError(what, err);
    }
  }

  private readStatefulSet(name: string): Promise<V1StatefulSet | null> {
    const { apps } = this.api();
    return this.readOrNull(`reading StatefulSet ${name}`, () =>
      apps.readNamespacedStatefulSet({ name, namespace: this.ns }, this.callOptions()),
    );
  }

  private readPod(name: string): Promise<V1Pod | null> {
    const { core } = this.api();
    return this.readOrNull(`reading pod ${name}-0`, () =>
      core.readNamespacedPod({ name: `${name}-0`, namespace: this.ns }, this.callOptions()),
    );
  }

  private readService(name: string): Promise<V1Service | null> {
    const { core } = this.api();
    return this.readOrNull(`reading Service ${name}`, () =>
      core.readNamespacedService({ name, namespace: this.ns }, this.callOptions()),
    );
  }

  /** The agent's StatefulSet by its id; not_found when absent or not one of this driver's. */
  private async ownStatefulSet(id: string): Promise<V1StatefulSet> {
    const statefulSet = await this.readStatefulSet(id);
    if (!statefulSet || statefulSet.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY)
      throw new HostingError("not_found", `no agent service ${id} in namespace ${this.ns}`);
    return statefulSet;
  }

  // ---- the interface ----

  async ping(): Promise<void> {
    const { apps } = this.api();
    await this.call(`listing StatefulSets in namespace ${this.ns}`, () =>
      apps.listNamespacedStatefulSet({ namespace: this.ns, limit: 1 }, this.callOptions()),
    );
  }

  async list(): Promise<HostedService[]> {
    const { apps, core } = this.api();
    const selector = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
    const [sets, pods, services] = await Promise.all([
      this.call("listing agent StatefulSets", () =>
        apps.listNamespacedStatefulSet({ namespace: this.ns, labelSelector: selector }, this.callOptions()),
      ),
      this.call("listing agent pods", () =>
        core.listNamespacedPod({ namespace: this.ns, labelSelector: selector }, this.callOptions()),
      ),
      this.call("listing agent Services", () =>
        core.listNamespacedService({ namespace: this.ns, labelSelector: selector }, this.callOptions()),
      ),
    ]);
    return sets.items.map((statefulSet) => {
      const name = statefulSet.metadata?.name ?? "";
      return this.describe(
        statefulSet,
        pods.items.find((pod) => pod.metadata?.name === `${name}-0`),
        services.items.find((service) => service.metadata?.name === name),
      );
    });
  }

  async find(ref: { id?: string | null; name: string; agentId?: string }): Promise<HostedService | null> {
    if (ref.agentId) {
      const statefulSet = await this.readStatefulSet(kubernetesName(ref.agentId));
      if (statefulSet && this.isAgents(statefulSet, ref.agentId)) return this.describeFresh(statefulSet);
      return null;
    }
    if (ref.id) {
      const statefulSet = await this.readStatefulSet(ref.id);
      if (statefulSet?.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY)
        return this.describeFresh(statefulSet);
    }
    // By the platform's service name: only an unambiguous match (two agents' names may read alike).
    const { apps } = this.api();
    const matches = await this.call("listing agent StatefulSets", () =>
      apps.listNamespacedStatefulSet(
        {
          namespace: this.ns,
          labelSelector: labelSelector({
            [MANAGED_BY_LABEL]: MANAGED_BY,
            [SERVICE_NAME_LABEL]: labelValue(ref.name),
          }),
        },
        this.callOptions(),
      ),
    );
    const exact = matches.items.filter(
      (s) => s.metadata?.annotations?.[SERVICE_NAME_ANNOTATION] === ref.name,
    );
    return exact.length === 1 ? this.describeFresh(exact[0]) : null;
  }

  async create(input: CreateServiceInput): Promise<HostedService> {
    assertAgentEnv(input.env, this.options.secretValues ?? []);
    const objects: AgentObjectsInput = {
      name: kubernetesName(input.agentId),
      agentId: input.agentId,
      userId: input.userId ?? null,
      serviceName: input.name,
      image: input.image,
      env: input.env,
    };
    let statefulSet = await this.readStatefulSet(objects.name);
    if (statefulSet) {
      // Created before (a retry, or a crash after the first create): brought to this configuration.
      this.assertAgents(statefulSet, objects.agentId, "StatefulSet");
      statefulSet = await this.writeTemplate(objects.name, objects);
    } else {
      const { apps } = this.api();
      const body = statefulSetObject(objects, this.options, { replicas: 0 });
      statefulSet = await this.call(`creating StatefulSet ${objects.name}`, () =>
        apps.createNamespacedStatefulSet({ namespace: this.ns, body }, this.callOptions()),
      );
    }
    await this.ensureObjects(statefulSet, objects, "replace");
    await this.scale(objects.name, 1);
    return this.describeFresh(await this.ownStatefulSet(objects.name));
  }

  async setEnv(id: string, env: Record<string, string>): Promise<void> {
    assertAgentEnv(env, this.options.secretValues ?? []);
    const statefulSet = await this.ownStatefulSet(id);
    const objects = { ...this.objectsOf(statefulSet), env };
    // The Secret first: a pod the new template starts finds the new values.
    await this.ensureObjects(statefulSet, objects, "replace");
    await this.writeTemplate(id, objects);
  }

  async setImage(id: string, image: string): Promise<void> {
    await this.updateStatefulSet(id, (statefulSet) => {
      const container = statefulSet.spec?.template.spec?.containers.find((c) => c.name === CONTAINER_NAME);
      if (!container)
        throw new HostingError("platform", `StatefulSet ${id} has no ${CONTAINER_NAME} container`);
      if (container.image === image) return;
      const annotations = statefulSet.metadata?.annotations ?? {};
      // Kept until a deploy brings the new image up; that deploy rolls back to it otherwise.
      if (!annotations[PREVIOUS_IMAGE_ANNOTATION] && container.image)
        annotations[PREVIOUS_IMAGE_ANNOTATION] = container.image;
      if (statefulSet.metadata) statefulSet.metadata.annotations = annotations;
      container.image = image;
    });
  }

  async deploy(id: string): Promise<HostedService> {
    let statefulSet = await this.ownStatefulSet(id);
    await this.ensureObjects(statefulSet, this.objectsOf(statefulSet), "missing");
    statefulSet = await this.rollOut(statefulSet);
    const previous = statefulSet.metadata?.annotations?.[PREVIOUS_IMAGE_ANNOTATION];
    const failure = await this.waitUntilUp(statefulSet);
    if (failure) {
      const image = this.imageOf(statefulSet);
      if (previous && previous !== image) {
        await this.rollBack(id, previous);
        throw new HostingError(
          "platform",
          `the agent did not come up with ${image} (${failure}); rolled back to ${previous}`,
        );
      }
      throw new HostingError("platform", `the agent did not come up (${failure})`);
    }
    if (previous)
      await this.patchStatefulSet(id, { metadata: { annotations: { [PREVIOUS_IMAGE_ANNOTATION]: null } } });
    return this.describeFresh(await this.ownStatefulSet(id));
  }

  async restart(id: string): Promise<void> {
    await this.rollOut(await this.ownStatefulSet(id), { restart: true });
  }

  async stop(id: string): Promise<void> {
    await this.ownStatefulSet(id);
    await this.scale(id, 0);
    // Like `docker stop`: returns once the pod is gone (its volume claim stays).
    const gone = await this.waitForPods(
      id,
      (pods) => pods.length === 0,
      this.options.removeTimeoutMs ?? 120_000,
    );
    if (!gone.ok) throw new HostingError("platform", `the agent's pod ${id}-0 did not stop in time`);
  }

  async remove(id: string): Promise<void> {
    const { apps, core, net } = this.api();
    const selector = labelSelector(selectorLabels(id));
    const statefulSet = await this.readStatefulSet(id);
    if (statefulSet && statefulSet.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY)
      throw new HostingError("not_found", `no agent service ${id} in namespace ${this.ns}`);
    const leftovers = await this.ownedObjects(selector);
    if (!statefulSet && leftovers.length === 0)
      throw new HostingError("not_found", `no agent service ${id} in namespace ${this.ns}`);
    if (statefulSet)
      await this.deleteIgnoringAbsent(`deleting StatefulSet ${id}`, () =>
        apps.deleteNamespacedStatefulSet(
          { name: id, namespace: this.ns, propagationPolicy: "Foreground" },
          this.callOptions(),
        ),
      );
    // What the garbage collector would remove, removed now, and what it would not (a claim kept by an
    // older cluster, objects a crash left without their StatefulSet).
    for (const { kind, name } of leftovers) {
      if (kind === "StatefulSet" && statefulSet) continue; // being deleted above, in the foreground
      const request = { name, namespace: this.ns, propagationPolicy: "Background" };
      await this.deleteIgnoringAbsent(`deleting ${kind} ${name}`, () => {
        switch (kind) {
          case "Secret":
            return core.deleteNamespacedSecret(request, this.callOptions());
          case "Service":
            return core.deleteNamespacedService(request, this.callOptions());
          case "NetworkPolicy":
            return net.deleteNamespacedNetworkPolicy(request, this.callOptions());
          case "PersistentVolumeClaim":
            return core.deleteNamespacedPersistentVolumeClaim(request, this.callOptions());
          case "Pod":
            return core.deleteNamespacedPod(request, this.callOptions());
          default:
            return apps.deleteNamespacedStatefulSet(request, this.callOptions());
        }
      });
    }
    // Deletions finish asynchronously (finalizers, the pod's grace period, the claim's protection).
    const deadline = this.clock.now().getTime() + (this.options.removeTimeoutMs ?? 120_000);
    for (;;) {
      const left = await this.ownedObjects(selector);
      if (left.length === 0) return;
      if (this.clock.now().getTime() > deadline)
        throw new HostingError(
          "platform",
          `still deleting ${left.map((o) => `${o.kind} ${o.name}`).join(", ")} of agent service ${id}`,
        );
      await sleep(500);
    }
  }

  async stats(id: string): Promise<ServiceStats> {
    const statefulSet = await this.ownStatefulSet(id);
    const limit = parseQuantity(
      statefulSet.spec?.template.spec?.containers.find((c) => c.name === CONTAINER_NAME)?.resources?.limits
        ?.memory,
    );
    const none = { cpuPercent: null, memoryBytes: null, memoryLimitBytes: limit };
    const pod = await this.readPod(id);
    if (!pod || !podReady(pod)) return none;
    const { custom } = this.api();
    let sample: { containers?: { name: string; usage?: { cpu?: string; memory?: string } }[] };
    try {
      sample = await custom.getNamespacedCustomObject(
        { group: "metrics.k8s.io", version: "v1beta1", namespace: this.ns, plural: "pods", name: `${id}-0` },
        this.callOptions(),
      );
    } catch (err) {
      // No metrics API in the cluster (404, 503 from an unavailable APIService), or no sample yet.
      if (isApiError(err, 404, 503)) return none;
      throw this.hostingError(`reading the metrics of pod ${id}-0`, err);
    }
    const usage = sample.containers?.find((c) => c.name === CONTAINER_NAME)?.usage;
    const cores = parseQuantity(usage?.cpu);
    const memory = parseQuantity(usage?.memory);
    return {
      cpuPercent: cores === null ? null : Math.round(cores * 1000) / 10,
      memoryBytes: memory === null ? null : Math.round(memory),
      memoryLimitBytes: limit,
    };
  }

  async logs(id: string, lines: number): Promise<ServiceLogLine[]> {
    await this.ownStatefulSet(id);
    const pod = await this.readPod(id);
    if (!pod) return [];
    const tail = Math.max(1, Math.min(Math.floor(lines), 5_000));
    const container = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME);
    // A container waiting to be restarted has no output of its own yet: the one that ended has.
    const previous = !container?.state?.running && (container?.restartCount ?? 0) > 0;
    const { core } = this.api();
    const text = await this.readOrNull(`reading the log of pod ${id}-0`, () =>
      core.readNamespacedPodLog(
        {
          name: `${id}-0`,
          namespace: this.ns,
          container: CONTAINER_NAME,
          tailLines: tail,
          timestamps: true,
          previous,
        },
        this.callOptions(),
      ),
    );
    return parsePodLog(text ?? "").slice(-tail);
  }

  async close(): Promise<void> {
    for (const controller of this.watches) controller.abort();
    this.watches.clear();
  }

  // ---- the agent's objects ----

  private isAgents(object: Metadata, agentId: string): boolean {
    return (
      object.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY &&
      object.metadata?.annotations?.[AGENT_ID_ANNOTATION] === agentId
    );
  }

  /** Refuses to touch an object of that name that is not this agent's (a collision, or not ours at all). */
  private assertAgents(object: Metadata, agentId: string, kind: Resource): void {
    if (!this.isAgents(object, agentId))
      throw new HostingError(
        "platform",
        `${kind} ${object.metadata?.name} in namespace ${this.ns} exists and is not agent ${agentId}'s: refusing to change it`,
      );
  }

  /** The agent's description as its StatefulSet records it (the env without the Secret's values). */
  private objectsOf(statefulSet: V1StatefulSet): AgentObjectsInput {
    const annotations = statefulSet.metadata?.annotations ?? {};
    const names = new Set((annotations[ENV_NAMES_ANNOTATION] ?? "").split(",").filter(Boolean));
    const container = statefulSet.spec?.template.spec?.containers.find((c) => c.name === CONTAINER_NAME);
    const env: Record<string, string> = {};
    for (const variable of container?.env ?? [])
      if (names.has(variable.name) && variable.value !== undefined) env[variable.name] = variable.value;
    return {
      name: statefulSet.metadata?.name ?? "",
      agentId: annotations[AGENT_ID_ANNOTATION] ?? "",
      userId: annotations[USER_ID_ANNOTATION] ?? null,
      serviceName: annotations[SERVICE_NAME_ANNOTATION] ?? statefulSet.metadata?.name ?? "",
      image: container?.image ?? "",
      env,
    };
  }

  private imageOf(statefulSet: V1StatefulSet): string {
    return statefulSet.spec?.template.spec?.containers.find((c) => c.name === CONTAINER_NAME)?.image ?? "";
  }

  /**
   * Creates the Secret, Service and NetworkPolicy owned by `statefulSet`. `replace`: existing ones are
   * brought to `objects` too; `missing`: only absent ones are created (a deploy completing a crashed create;
   * the Secret's values are not known then, so a missing Secret is an error naming the repair).
   */
  private async ensureObjects(
    statefulSet: V1StatefulSet,
    objects: AgentObjectsInput,
    mode: "replace" | "missing",
  ): Promise<void> {
    const { core, net } = this.api();
    const name = objects.name;
    const owner = ownerReference({ name, uid: statefulSet.metadata?.uid ?? "" });
    const ns = this.ns;
    const opts = () => this.callOptions();

    const secret = await this.readOrNull(`reading Secret ${name}`, () =>
      core.readNamespacedSecret({ name, namespace: ns }, opts()),
    );
    if (!secret && mode === "missing")
      throw new HostingError(
        "platform",
        `the agent's Secret ${name} is missing (an interrupted create): repair the agent to write its environment again`,
      );
    await this.apply<V1Secret>("Secret", objects.agentId, secret, secretObject(objects, owner), mode, {
      create: (body) => core.createNamespacedSecret({ namespace: ns, body }, opts()),
      replace: (body) => core.replaceNamespacedSecret({ name, namespace: ns, body }, opts()),
    });

    const service = await this.readService(name);
    await this.apply<V1Service>("Service", objects.agentId, service, serviceObject(objects, owner), mode, {
      create: (body) => core.createNamespacedService({ namespace: ns, body }, opts()),
      // The cluster IP is immutable: the rest is merged in, not replaced.
      replace: (body) =>
        core.patchNamespacedService(
          {
            name,
            namespace: ns,
            body: {
              metadata: body.metadata,
              spec: { selector: body.spec?.selector, ports: body.spec?.ports },
            },
          },
          this.callOptions(PatchStrategy.MergePatch),
        ),
    });

    const policy = await this.readOrNull(`reading NetworkPolicy ${name}`, () =>
      net.readNamespacedNetworkPolicy({ name, namespace: ns }, opts()),
    );
    await this.apply<V1NetworkPolicy>(
      "NetworkPolicy",
      objects.agentId,
      policy,
      networkPolicyObject(objects, this.options, owner),
      mode,
      {
        create: (body) => net.createNamespacedNetworkPolicy({ namespace: ns, body }, opts()),
        replace: (body) => net.replaceNamespacedNetworkPolicy({ name, namespace: ns, body }, opts()),
      },
    );
  }

  private async apply<T extends Metadata>(
    kind: Resource,
    agentId: string,
    existing: T | null,
    desired: T,
    mode: "replace" | "missing",
    calls: { create: (body: T) => Promise<T>; replace: (body: T) => Promise<unknown> },
  ): Promise<void> {
    const name = desired.metadata?.name;
    if (!existing) {
      await this.call(`creating ${kind} ${name}`, () => calls.create(desired));
      return;
    }
    this.assertAgents(existing, agentId, kind);
    if (mode === "missing") return;
    const body = {
      ...desired,
      metadata: { ...desired.metadata, resourceVersion: existing.metadata?.resourceVersion },
    };
    await this.call(`updating ${kind} ${name}`, () => calls.replace(body));
  }

  /** Reads, changes and replaces the StatefulSet, again on a conflict (someone wrote in between). */
  private async updateStatefulSet(
    id: string,
    change: (statefulSet: V1StatefulSet) => void,
  ): Promise<V1StatefulSet> {
    const { apps } = this.api();
    for (let attempt = 1; ; attempt++) {
      const statefulSet = await this.ownStatefulSet(id);
      change(statefulSet);
      try {
        return await apps.replaceNamespacedStatefulSet(
          { name: id, namespace: this.ns, body: statefulSet },
          this.callOptions(),
        );
      } catch (err) {
        if (!isApiError(err, 409) || attempt >= 3) throw this.hostingError(`updating StatefulSet ${id}`, err);
      }
    }
  }

  /** The pod template (and the record of the agent's variables) for `objects`; replicas and restarts kept. */
  private writeTemplate(id: string, objects: AgentObjectsInput): Promise<V1StatefulSet> {
    return this.updateStatefulSet(id, (statefulSet) => {
      const restartedAt = statefulSet.spec?.template.metadata?.annotations?.[RESTARTED_AT_ANNOTATION];
      const desired = statefulSetObject(objects, this.options, {
        replicas: statefulSet.spec?.replicas ?? 0,
        restartedAt,
      });
      if (!statefulSet.spec || !desired.spec) return;
      statefulSet.metadata = {
        ...statefulSet.metadata,
        labels: desired.metadata?.labels,
        annotations: { ...statefulSet.metadata?.annotations, ...desired.metadata?.annotations },
      };
      statefulSet.spec.template = desired.spec.template;
      statefulSet.spec.updateStrategy = desired.spec.updateStrategy;
      statefulSet.spec.persistentVolumeClaimRetentionPolicy =
        desired.spec.persistentVolumeClaimRetentionPolicy;
    });
  }

  private patchStatefulSet(id: string, body: object): Promise<V1StatefulSet> {
    const { apps } = this.api();
    return this.call(`updating StatefulSet ${id}`, () =>
      apps.patchNamespacedStatefulSet(
        { name: id, namespace: this.ns, body },
        this.callOptions(PatchStrategy.MergePatch),
      ),
    );
  }

  private async scale(id: string, replicas: number): Promise<void> {
    await this.patchStatefulSet(id, { spec: { replicas } });
  }

  private deletePod(id: string): Promise<unknown> {
    const { core } = this.api();
    return this.deleteIgnoringAbsent(`deleting pod ${id}-0`, () =>
      core.deleteNamespacedPod({ name: `${id}-0`, namespace: this.ns }, this.callOptions()),
    );
  }

  private async deleteIgnoringAbsent(what: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (err) {
      if (!isApiError(err, 404)) throw this.hostingError(what, err);
    }
  }

  /**
   * Makes the pod run the StatefulSet's current template: scales a stopped agent to 1; restarts a pod that
   * already runs the template and is ready or broken (`restart` restarts a starting one too); deletes an
   * unhealthy pod, which a rolling update would otherwise wait on forever.
   */
  private async rollOut(
    statefulSet: V1StatefulSet,
    options: { restart?: boolean } = {},
  ): Promise<V1StatefulSet> {
    const id = statefulSet.metadata?.name ?? "";
    if ((statefulSet.spec?.replicas ?? 0) === 0) {
      await this.scale(id, 1);
      return this.ownStatefulSet(id);
    }
    const pod = await this.readPod(id);
    if (!pod) return statefulSet;
    const current = this.runsTemplate(pod, statefulSet);
    const starting = !podReady(pod) && podProblem(pod) === null && !pod.metadata?.deletionTimestamp;
    let updated = statefulSet;
    if (current && (options.restart || !starting)) {
      updated = await this.patchStatefulSet(id, {
        spec: {
          template: {
            metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: this.clock.now().toISOString() } },
          },
        },
      });
    }
    if (!podReady(pod) && !pod.metadata?.deletionTimestamp && (!current || !starting || options.restart))
      await this.deletePod(id);
    return updated;
  }

  /** The pod runs the template: same image, same Secret hash, same restart stamp. */
  private runsTemplate(pod: V1Pod, statefulSet: V1StatefulSet): boolean {
    const template = statefulSet.spec?.template;
    const annotations = pod.metadata?.annotations ?? {};
    const wanted = template?.metadata?.annotations ?? {};
    return (
      pod.spec?.containers.find((c) => c.name === CONTAINER_NAME)?.image === this.imageOf(statefulSet) &&
      annotations[SECRET_HASH_ANNOTATION] === wanted[SECRET_HASH_ANNOTATION] &&
      annotations[RESTARTED_AT_ANNOTATION] === wanted[RESTARTED_AT_ANNOTATION]
    );
  }

  /** Waits for a ready pod running the template, then for the shared probe; null, or why it failed. */
  private async waitUntilUp(statefulSet: V1StatefulSet): Promise<string | null> {
    const id = statefulSet.metadata?.name ?? "";
    const ready = await this.waitForPods(
      id,
      (pods) => pods.some((pod) => podReady(pod) && this.runsTemplate(pod, statefulSet)),
      this.options.rolloutTimeoutMs ?? 5 * 60_000,
    );
    if (!ready.ok) {
      const problem = podProblem(
        ready.pods.find((pod) => this.runsTemplate(pod, statefulSet)) ?? ready.pods[0],
      );
      return `its pod was not ready within ${Math.round((this.options.rolloutTimeoutMs ?? 300_000) / 1000)} s${problem ? `: ${problem}` : ""}`;
    }
    if (this.options.probeAgents === false) return null;
    const url = this.urlOf(await this.readService(id));
    if (!url) return "its Service has no cluster IP";
    const health = await waitForHealthy(url, {
      pollMs: this.options.healthPollMs,
      timeoutMs: this.options.healthTimeoutMs,
    });
    return health.healthy ? null : `its pod is ready but the agent is not (probe: ${health.probe.status})`;
  }

  /** Back to `image`: the template reverted, the broken pod deleted (the controller will not replace it). */
  private async rollBack(id: string, image: string): Promise<void> {
    const statefulSet = await this.updateStatefulSet(id, (s) => {
      const container = s.spec?.template.spec?.containers.find((c) => c.name === CONTAINER_NAME);
      if (container) container.image = image;
      if (s.metadata?.annotations) delete s.metadata.annotations[PREVIOUS_IMAGE_ANNOTATION];
    });
    const pod = await this.readPod(id);
    if (pod && !podReady(pod)) await this.deletePod(id);
    await this.waitUntilUp(statefulSet);
  }

  /**
   * Lists the agent's pods and watches them from that list's resourceVersion until `done` holds for the
   * pods seen, or the time is up. A watch the API ends (its timeout, 410 Gone) starts over with a list.
   */
  private async waitForPods(
    id: string,
    done: (pods: V1Pod[]) => boolean,
    timeoutMs: number,
  ): Promise<{ ok: boolean; pods: V1Pod[] }> {
    const { core, watch } = this.api();
    const selector = labelSelector(selectorLabels(id));
    const deadline = this.clock.now().getTime() + timeoutMs;
    for (;;) {
      const list = await this.call(`listing the pods of ${id}`, () =>
        core.listNamespacedPod({ namespace: this.ns, labelSelector: selector }, this.callOptions()),
      );
      const pods = new Map(list.items.map((pod) => [pod.metadata?.name ?? "", pod]));
      if (done([...pods.values()])) return { ok: true, pods: [...pods.values()] };
      const left = deadline - this.clock.now().getTime();
      if (left <= 0) return { ok: false, pods: [...pods.values()] };
      const outcome = await new Promise<"done" | "ended" | "timeout">((resolve) => {
        let controller: AbortController | null = null;
        let settled = false;
        const finish = (result: "done" | "ended" | "timeout") => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (controller) {
            controller.abort();
            this.watches.delete(controller);
          }
          resolve(result);
        };
        const timer = setTimeout(() => finish("timeout"), left);
        watch
          .watch(
            `/api/v1/namespaces/${this.ns}/pods`,
            {
              labelSelector: selector,
              resourceVersion: list.metadata?.resourceVersion,
              timeoutSeconds: Math.max(1, Math.ceil(left / 1000)),
            },
            (type: string, object: V1Pod) => {
              const name = object.metadata?.name ?? "";
              if (type === "ADDED" || type === "MODIFIED") pods.set(name, object);
              else if (type === "DELETED") pods.delete(name);
              else if (type === "ERROR") return finish("ended");
              if (done([...pods.values()])) finish("done");
            },
            () => finish("ended"),
          )
          .then(
            (c) => {
              controller = c;
              if (settled) c.abort();
              else this.watches.add(c);
            },
            () => finish("ended"),
          );
      });
      if (outcome === "done") return { ok: true, pods: [...pods.values()] };
      if (outcome === "timeout") return { ok: false, pods: [...pods.values()] };
      // The watch ended (or could not start): list again after a moment, so a refusing API is not hammered.
      await sleep(200);
    }
  }

  /** Every object of the agent's instance, by its labels (the StatefulSet, its pod and claim, the rest). */
  private async ownedObjects(selector: string): Promise<{ kind: Resource; name: string }[]> {
    const { apps, core, net } = this.api();
    const request = { namespace: this.ns, labelSelector: selector };
    const [sets, pods, claims, secrets, services, policies] = await Promise.all([
      this.call("listing StatefulSets", () => apps.listNamespacedStatefulSet(request, this.callOptions())),
      this.call("listing pods", () => core.listNamespacedPod(request, this.callOptions())),
      this.call("listing volume claims", () =>
        core.listNamespacedPersistentVolumeClaim(request, this.callOptions()),
      ),
      this.call("listing Secrets", () => core.listNamespacedSecret(request, this.callOptions())),
      this.call("listing Services", () => core.listNamespacedService(request, this.callOptions())),
      this.call("listing NetworkPolicies", () =>
        net.listNamespacedNetworkPolicy(request, this.callOptions()),
      ),
    ]);
    const named = (kind: Resource, items: Metadata[]) =>
      items.map((item) => ({ kind, name: item.metadata?.name ?? "" }));
    return [
      ...named("StatefulSet", sets.items),
      ...named("Pod", pods.items),
      ...named("PersistentVolumeClaim", claims.items),
      ...named("Secret", secrets.items),
      ...named("Service", services.items),
      ...named("NetworkPolicy", policies.items),
    ];
  }

  // ---- descriptions ----

  private urlOf(service: V1Service | null): string | null {
    const ip = service?.spec?.clusterIP;
    if (!ip || ip === "None") return null;
    const port = service?.spec?.ports?.find((p) => p.name === "http")?.port ?? WRAPPER_PORT;
    return ip.includes(":") ? `http://[${ip}]:${port}` : `http://${ip}:${port}`;
  }

  private async describeFresh(statefulSet: V1StatefulSet): Promise<HostedService> {
    const name = statefulSet.metadata?.name ?? "";
    const [pod, service] = await Promise.all([this.readPod(name), this.readService(name)]);
    return this.describe(statefulSet, pod ?? undefined, service ?? undefined);
  }

  private describe(
    statefulSet: V1StatefulSet,
    pod: V1Pod | undefined,
    service: V1Service | undefined,
  ): HostedService {
    const name = statefulSet.metadata?.name ?? "";
    const annotations = statefulSet.metadata?.annotations ?? {};
    const container = pod?.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME);
    return {
      id: name,
      name: annotations[SERVICE_NAME_ANNOTATION] ?? name,
      url: this.urlOf(service ?? null),
      image: this.imageOf(statefulSet) || null,
      status: serviceStatus(statefulSet, pod),
      metadata: {
        namespace: this.ns,
        agentId: annotations[AGENT_ID_ANNOTATION] ?? null,
        replicas: statefulSet.spec?.replicas ?? 0,
        pod: pod?.metadata?.name ?? null,
        phase: pod?.status?.phase ?? null,
        ready: pod ? podReady(pod) : false,
        restarts: container?.restartCount ?? 0,
        reason: podProblem(pod),
        clusterIP: service?.spec?.clusterIP ?? null,
      },
    };
  }
}

/** `<RFC 3339 timestamp> <line>` lines of the pod log API (which merges stdout and stderr). */
export function parsePodLog(text: string): ServiceLogLine[] {
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const space = line.indexOf(" ");
      const stamp = space === -1 ? "" : line.slice(0, space);
      const time = Date.parse(stamp);
      return Number.isNaN(time)
        ? { ts: "", stream: "stdout" as const, line }
        : { ts: new Date(time).toISOString(), stream: "stdout" as const, line: line.slice(space + 1) };
    });
}

export function createKubernetesHostingPlatform(
  options: KubernetesHostingOptions,
): KubernetesHostingPlatform {
  return new KubernetesHostingPlatform(options);
}
