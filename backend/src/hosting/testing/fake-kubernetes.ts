/**
 * A loopback stand-in for the Kubernetes API server and the parts of a cluster the kubernetes driver
 * relies on, so the driver is tested through `@kubernetes/client-node` over real HTTPS without a cluster.
 *
 * The API (what the client sends, answered as the real API server answers): TLS with the loopback test
 * certificate, Bearer token auth (401 Status otherwise); create, get, list and watch (label selectors,
 * `metadata.name` field selector, resourceVersion, timeoutSeconds; events as newline-delimited JSON),
 * replace (409 Conflict on a stale resourceVersion), patch in the three JSON content types (merge, JSON
 * patch, strategic merge for the merge keys of pod specs; 415 for anything else), delete with
 * propagationPolicy (Foreground, Background, Orphan) and finalizers; 404/409/422 as Status objects with the
 * API's reasons and messages; pod logs; the metrics API (metrics.k8s.io) when switched on.
 *
 * The cluster (asynchronously, after each write, as controllers do): the garbage collector (ownerReferences),
 * the StatefulSet controller (one pod per replica from the template, volume claims from the
 * volumeClaimTemplates with their retention policy, rolling updates that wait on an unhealthy pod), the
 * volume claim protection finalizer, a kubelet (a pod whose image pulls and whose Secret and claim exist runs
 * the one fake agent runtime, and is Ready once its readinessProbe's httpGet answers), and kube-proxy (each
 * Service's cluster IP, a 127.x.y.z address, forwards its ports to a ready pod it selects).
 *
 * Not modelled: admission, RBAC, quotas, scheduling, networking enforcement (NetworkPolicies are stored,
 * not applied), server-side apply, and the fine print of the API's validation beyond names, labels,
 * immutable fields and the selector.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import {
  createConnection,
  createServer as createTcpServer,
  type Socket,
  type Server as TcpServer,
} from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "@svc/common";
import { type FakeAgentRuntime, startFakeAgentRuntime } from "@svc/common/testing";

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects are open JSON here, as on the wire.
export type KubeObject = Record<string, any>;

interface ResourceType {
  /** The URL segment and the Status `details.kind` (`statefulsets`). */
  plural: string;
  kind: string;
  group: string;
  version: string;
  /** DNS-1123 label (services, statefulsets) or subdomain. */
  nameRule: "label" | "label1035" | "subdomain";
}

const TYPES: ResourceType[] = [
  { plural: "statefulsets", kind: "StatefulSet", group: "apps", version: "v1", nameRule: "label" },
  { plural: "pods", kind: "Pod", group: "", version: "v1", nameRule: "subdomain" },
  { plural: "services", kind: "Service", group: "", version: "v1", nameRule: "label1035" },
  { plural: "secrets", kind: "Secret", group: "", version: "v1", nameRule: "subdomain" },
  {
    plural: "persistentvolumeclaims",
    kind: "PersistentVolumeClaim",
    group: "",
    version: "v1",
    nameRule: "subdomain",
  },
  {
    plural: "networkpolicies",
    kind: "NetworkPolicy",
    group: "networking.k8s.io",
    version: "v1",
    nameRule: "subdomain",
  },
];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
];
const TLS_DIR = fileURLToPath(new URL("../../../../common/testing/fixtures/tls/", import.meta.url));

export interface FakeKubernetesRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: unknown;
}

/** An object the driver wrote: a create or replace body, or the object a patch produced. */
export interface WrittenObject {
  method: string;
  kind: string;
  object: KubeObject;
}

export interface FakeKubernetesOptions {
  token?: string;
  /** Serve metrics.k8s.io (default false: the group is absent, as in a cluster without metrics-server). */
  metricsApi?: boolean;
}

type Failure = { status: number; message?: string } | { drop: true };

class HttpFailure extends Error {
  constructor(
    readonly code: number,
    readonly body: KubeObject,
  ) {
    super(String(body.message));
  }
}

function statusBody(code: number, reason: string, message: string, details?: KubeObject): KubeObject {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    details,
    code,
  };
}

function qualified(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}

function notFound(type: ResourceType, name: string): HttpFailure {
  return new HttpFailure(
    404,
    statusBody(404, "NotFound", `${qualified(type)} "${name}" not found`, {
      name,
      group: type.group,
      kind: type.plural,
    }),
  );
}

function invalid(
  type: ResourceType,
  name: string,
  causes: { field: string; message: string }[],
): HttpFailure {
  return new HttpFailure(
    422,
    statusBody(
      422,
      "Invalid",
      `${type.kind} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}`,
      {
        name,
        group: type.group,
        kind: type.kind,
        causes: causes.map((c) => ({ reason: "FieldValueInvalid", message: c.message, field: c.field })),
      },
    ),
  );
}

const clone = <T>(value: T): T => structuredClone(value);
const isObject = (value: unknown): value is KubeObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** RFC 7386. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: KubeObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** The merge keys of the lists a strategic merge patch merges instead of replacing. */
const MERGE_KEYS: Record<string, string> = {
  containers: "name",
  initContainers: "name",
  env: "name",
  volumes: "name",
  volumeMounts: "mountPath",
  imagePullSecrets: "name",
  ownerReferences: "uid",
  conditions: "type",
  ports: "containerPort",
};

/** A strategic merge patch: merge patch semantics, merge-key lists merged by key, `$patch` directives. */
export function strategicMergePatch(target: unknown, patch: unknown, key = ""): unknown {
  if (Array.isArray(patch)) {
    const mergeKey = MERGE_KEYS[key];
    if (!mergeKey || !Array.isArray(target) || !patch.every(isObject)) return clone(patch);
    const result = clone(target) as KubeObject[];
    for (const item of patch as KubeObject[]) {
      const index = result.findIndex((existing) => existing[mergeKey] === item[mergeKey]);
      if (item.$patch === "delete") {
        if (index !== -1) result.splice(index, 1);
      } else if (index === -1) result.push(clone(item));
      else result[index] = strategicMergePatch(result[index], item) as KubeObject;
    }
    return result;
  }
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === "replace") {
    const { $patch: _directive, ...rest } = patch;
    return clone(rest);
  }
  const result: KubeObject = isObject(target) ? clone(target) : {};
  for (const [field, value] of Object.entries(patch)) {
    if (field.startsWith("$")) continue;
    if (value === null) delete result[field];
    else result[field] = strategicMergePatch(result[field], value, field);
  }
  return result;
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new Error(`bad JSON pointer ${path}`);
  return path
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** RFC 6902 (add, remove, replace, move, copy, test). */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw new Error("a JSON patch is a list of operations");
  let document = clone(target);
  const parentOf = (tokens: string[]): { parent: KubeObject | unknown[]; last: string } => {
    let node: unknown = document;
    for (const token of tokens.slice(0, -1)) {
      node = Array.isArray(node) ? node[Number(token)] : isObject(node) ? node[token] : undefined;
      if (node === undefined) throw new Error(`no path ${tokens.join("/")}`);
    }
    return { parent: node as KubeObject | unknown[], last: tokens.at(-1) ?? "" };
  };
  const read = (tokens: string[]): unknown => {
    let node: unknown = document;
    for (const token of tokens)
      node = Array.isArray(node) ? node[Number(token)] : (node as KubeObject)?.[token];
    return node;
  };
  const remove = (tokens: string[]): unknown => {
    const { parent, last } = parentOf(tokens);
    if (Array.isArray(parent)) return parent.splice(Number(last), 1)[0];
    if (!(last in parent)) throw new Error(`no path /${tokens.join("/")}`);
    const value = parent[last];
    delete parent[last];
    return value;
  };
  const add = (tokens: string[], value: unknown): void => {
    if (tokens.length === 0) {
      document = clone(value);
      return;
    }
    const { parent, last } = parentOf(tokens);
    if (Array.isArray(parent)) parent.splice(last === "-" ? parent.length : Number(last), 0, clone(value));
    else parent[last] = clone(value);
  };
  for (const operation of operations as KubeObject[]) {
    const tokens = pointer(String(operation.path));
    switch (operation.op) {
      case "add":
        add(tokens, operation.value);
        break;
      case "remove":
        remove(tokens);
        break;
      case "replace":
        remove(tokens);
        add(tokens, operation.value);
        break;
      case "move":
        add(tokens, remove(pointer(String(operation.from))));
        break;
      case "copy":
        add(tokens, read(pointer(String(operation.from))));
        break;
      case "test":
        if (JSON.stringify(read(tokens)) !== JSON.stringify(operation.value))
          throw new Error(`test failed at ${operation.path}`);
        break;
      default:
        throw new Error(`unknown operation ${operation.op}`);
    }
  }
  return document;
}

type Requirement = { key: string; op: "=" | "!=" | "in" | "notin" | "exists" | "!"; values: string[] };

/** Label selectors: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`. */
export function parseLabelSelector(selector: string): Requirement[] {
  const requirements: Requirement[] = [];
  for (const part of selector.match(/[^,(]+(\([^)]*\))?/g) ?? []) {
    const text = part.trim().replace(/^,/, "").trim();
    if (!text) continue;
    let match = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(text);
    if (match) {
      const values = match[3].split(",").map((v) => v.trim());
      requirements.push({ key: match[1], op: match[2] as "in" | "notin", values });
      continue;
    }
    match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(text);
    if (match) {
      requirements.push({ key: match[1], op: match[2] === "!=" ? "!=" : "=", values: [match[3]] });
      continue;
    }
    if (text.startsWith("!")) requirements.push({ key: text.slice(1), op: "!", values: [] });
    else requirements.push({ key: text, op: "exists", values: [] });
  }
  return requirements;
}

export function matchesSelector(
  labels: Record<string, string> | undefined,
  requirements: Requirement[],
): boolean {
  const have = labels ?? {};
  return requirements.every(({ key, op, values }) => {
    const value = have[key];
    switch (op) {
      case "=":
        return value === values[0];
      case "!=":
        return value !== values[0];
      case "in":
        return value !== undefined && values.includes(value);
      case "notin":
        return value === undefined || !values.includes(value);
      case "exists":
        return value !== undefined;
      default:
        return value === undefined;
    }
  });
}

interface WatchStream {
  type: ResourceType;
  namespace: string;
  requirements: Requirement[];
  name: string | null;
  res: ServerResponse;
}

interface PodRuntime {
  agent: FakeAgentRuntime | null;
  starting: boolean;
}

export interface FakeKubernetes {
  /** `https://127.0.0.1:<port>` */
  server: string;
  token: string;
  /** A kubeconfig (YAML) whose current context is this server, its CA and token. */
  kubeconfig: string;
  /** Writes the kubeconfig to a new temporary file and returns its path. */
  writeKubeconfig(): Promise<string>;
  requests: FakeKubernetesRequest[];
  written: WrittenObject[];
  /** Images whose pull fails (the pod waits in ImagePullBackOff). */
  unpullable: Set<string>;
  metricsApi: boolean;
  /** metrics.k8s.io samples by `<namespace>/<pod>`: `{ cpu: "250m", memory: "300Mi" }`. */
  podMetrics: Map<string, { cpu: string; memory: string }>;
  /** The next request matching `method` and `plural` fails: an error Status, or the connection dropped. */
  failNext(method: string, plural: string, failure?: Failure): void;
  objects(plural: string, namespace?: string): KubeObject[];
  get(plural: string, namespace: string, name: string): KubeObject | undefined;
  /** The fake agent a running pod runs. */
  agentOf(namespace: string, pod: string): FakeAgentRuntime | undefined;
  /** The files a pod's Secret volumes put in its container: path → content. */
  secretFiles(namespace: string, pod: string): Record<string, string>;
  /** The pod's container exits and waits to be restarted (CrashLoopBackOff). */
  crashPod(namespace: string, pod: string, options?: { oomKilled?: boolean }): Promise<void>;
  /** A log line of the pod's container (`<timestamp> <line>` as the kubelet keeps them). */
  appendLog(namespace: string, pod: string, line: string, at?: Date): void;
  /** Resolves once no controller work is pending. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fake API server (HTTPS on 127.0.0.1) and its cluster. */
export async function startFakeKubernetes(options: FakeKubernetesOptions = {}): Promise<FakeKubernetes> {
  const token = options.token ?? `fake-kube-token-${randomUUID()}`;
  const cert = readFileSync(join(TLS_DIR, "loopback-cert.pem"));
  const key = readFileSync(join(TLS_DIR, "loopback-key.pem"));
  const store = new Map<string, KubeObject>();
  const history: { rv: number; type: string; plural: string; object: KubeObject }[] = [];
  const streams = new Set<WatchStream>();
  const failures: { method: string; plural: string; failure: Failure }[] = [];
  const pods = new Map<string, PodRuntime>();
  const proxies = new Map<string, TcpServer[]>();
  const logs = new Map<string, string[]>();
  const requests: FakeKubernetesRequest[] = [];
  const written: WrittenObject[] = [];
  let resourceVersion = 1000;
  // Cluster IPs from 127.<a>.<b>.<c>, a different /16 per fake so parallel test files do not meet.
  const ipBase = 100 + Math.floor(Math.random() * 150);
  let ipSequence = Math.floor(Math.random() * 200) * 256 + 2;
  let closed = false;

  const keyOf = (type: ResourceType, namespace: string, name: string) =>
    `${type.plural}/${namespace}/${name}`;
  const typeOf = (plural: string): ResourceType => {
    const type = TYPES.find((t) => t.plural === plural);
    if (!type) throw new Error(`unknown resource ${plural}`);
    return type;
  };
  const list = (type: ResourceType, namespace?: string): KubeObject[] =>
    [...store.entries()]
      .filter(([k]) => k.startsWith(`${type.plural}/${namespace === undefined ? "" : `${namespace}/`}`))
      .map(([, object]) => object);

  // ---- storage with watch events ----

  function emit(type: string, resource: ResourceType, object: KubeObject): void {
    history.push({
      rv: Number(object.metadata.resourceVersion),
      type,
      plural: resource.plural,
      object: clone(object),
    });
    for (const stream of streams) {
      if (stream.type !== resource || stream.namespace !== object.metadata.namespace) continue;
      if (stream.name && stream.name !== object.metadata.name) continue;
      if (!matchesSelector(object.metadata.labels, stream.requirements)) continue;
      stream.res.write(`${JSON.stringify({ type, object })}\n`);
    }
  }

  function put(type: ResourceType, object: KubeObject, event: "ADDED" | "MODIFIED"): KubeObject {
    object.metadata.resourceVersion = String(++resourceVersion);
    store.set(keyOf(type, object.metadata.namespace, object.metadata.name), object);
    emit(event, type, object);
    schedule();
    return object;
  }

  function drop(type: ResourceType, object: KubeObject): void {
    store.delete(keyOf(type, object.metadata.namespace, object.metadata.name));
    object.metadata.resourceVersion = String(++resourceVersion);
    emit("DELETED", type, object);
    if (type.plural === "services") closeProxy(object);
    schedule();
  }

  /** Deletes as the API does: finalizers keep the object (marked) until they are gone. */
  function remove(type: ResourceType, object: KubeObject, propagation: string): KubeObject {
    const finalizers: string[] = object.metadata.finalizers ?? [];
    if (propagation === "Foreground" && !finalizers.includes("foregroundDeletion"))
      finalizers.push("foregroundDeletion");
    if (propagation === "Orphan") {
      for (const dependent of dependentsOf(object)) {
        dependent.object.metadata.ownerReferences = dependent.object.metadata.ownerReferences.filter(
          (ref: KubeObject) => ref.uid !== object.metadata.uid,
        );
        put(dependent.type, dependent.object, "MODIFIED");
      }
    }
    if (finalizers.length > 0 || type.plural === "pods") {
      // Pods end through the kubelet (their grace period); the rest when their finalizers are removed.
      if (!object.metadata.deletionTimestamp) {
        object.metadata.deletionTimestamp = new Date().toISOString();
        object.metadata.finalizers = finalizers.length > 0 ? finalizers : undefined;
        put(type, object, "MODIFIED");
      }
      return object;
    }
    drop(type, object);
    return object;
  }

  function dependentsOf(owner: KubeObject): { type: ResourceType; object: KubeObject }[] {
    const found: { type: ResourceType; object: KubeObject }[] = [];
    for (const type of TYPES)
      for (const object of list(type, owner.metadata.namespace))
        if ((object.metadata.ownerReferences ?? []).some((ref: KubeObject) => ref.uid === owner.metadata.uid))
          found.push({ type, object });
    return found;
  }

  // ---- the API's own checks ----

  function validate(type: ResourceType, object: KubeObject, old?: KubeObject): void {
    const name = String(object.metadata?.name ?? "");
    const causes: { field: string; message: string }[] = [];
    const rule = { label: DNS_LABEL, label1035: DNS_1035, subdomain: DNS_SUBDOMAIN }[type.nameRule];
    if (!name)
      causes.push({ field: "metadata.name", message: "Required value: name or generateName is required" });
    else if (!rule.test(name) || name.length > (type.nameRule === "subdomain" ? 253 : 63))
      causes.push({
        field: "metadata.name",
        message: `Invalid value: "${name}": must be a ${type.nameRule === "label1035" ? "DNS-1035" : "DNS-1123"} ${type.nameRule === "subdomain" ? "subdomain" : "label"}`,
      });
    const checkLabels = (labels: unknown, field: string) => {
      for (const [labelKey, value] of Object.entries((labels ?? {}) as Record<string, unknown>)) {
        const slash = labelKey.lastIndexOf("/");
        const prefix = slash === -1 ? "" : labelKey.slice(0, slash);
        const local = slash === -1 ? labelKey : labelKey.slice(slash + 1);
        if (!LABEL_NAME.test(local) || (prefix && (!DNS_SUBDOMAIN.test(prefix) || prefix.length > 253)))
          causes.push({
            field,
            message: `Invalid value: "${labelKey}": name part must consist of alphanumeric characters, '-', '_' or '.'`,
          });
        if (typeof value !== "string" || !LABEL_VALUE.test(value))
          causes.push({
            field,
            message: `Invalid value: "${String(value)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
          });
      }
    };
    checkLabels(object.metadata?.labels, "metadata.labels");
    for (const ref of object.metadata?.ownerReferences ?? [])
      if (!ref.uid || !ref.name || !ref.kind)
        causes.push({
          field: "metadata.ownerReferences",
          message: "Invalid value: uid, name and kind are required",
        });
    if (type.plural === "statefulsets") {
      const spec = object.spec ?? {};
      checkLabels(spec.template?.metadata?.labels, "spec.template.metadata.labels");
      if (
        !matchesSelector(
          spec.template?.metadata?.labels,
          Object.entries(spec.selector?.matchLabels ?? {}).map(([k, v]) => ({
            key: k,
            op: "=" as const,
            values: [String(v)],
          })),
        )
      )
        causes.push({
          field: "spec.template.metadata.labels",
          message: "Invalid value: `selector` does not match template `labels`",
        });
      if (!Array.isArray(spec.template?.spec?.containers) || spec.template.spec.containers.length === 0)
        causes.push({ field: "spec.template.spec.containers", message: "Required value" });
      if (old) {
        for (const field of ["selector", "serviceName", "volumeClaimTemplates", "podManagementPolicy"])
          if (JSON.stringify(spec[field]) !== JSON.stringify(old.spec?.[field]))
            causes.push({
              field: "spec",
              message:
                "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
            });
      }
    }
    if (
      type.plural === "services" &&
      old &&
      object.spec?.clusterIP &&
      object.spec.clusterIP !== old.spec?.clusterIP
    )
      causes.push({
        field: "spec.clusterIP",
        message: `Invalid value: "${object.spec.clusterIP}": field is immutable`,
      });
    if (causes.length > 0) throw invalid(type, name, causes);
  }

  /** What the API server fills in on create (the parts a client reads back). */
  function defaults(type: ResourceType, object: KubeObject, namespace: string): void {
    object.apiVersion = type.group ? `${type.group}/${type.version}` : type.version;
    object.kind = type.kind;
    object.metadata.namespace = namespace;
    object.metadata.uid = randomUUID();
    object.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    if (type.plural === "statefulsets") {
      object.metadata.generation = 1;
      object.spec.replicas ??= 1;
      object.spec.podManagementPolicy ??= "OrderedReady";
      object.spec.updateStrategy ??= { type: "RollingUpdate" };
      if (object.spec.updateStrategy.type === "RollingUpdate")
        object.spec.updateStrategy.rollingUpdate ??= { partition: 0 };
      object.spec.revisionHistoryLimit ??= 10;
      object.spec.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: "Retain", whenScaled: "Retain" };
      object.status = { replicas: 0, availableReplicas: 0 };
    }
    if (type.plural === "services") {
      object.spec.type ??= "ClusterIP";
      object.spec.sessionAffinity ??= "None";
      for (const port of object.spec.ports ?? []) {
        port.protocol ??= "TCP";
        port.targetPort ??= port.port;
      }
      if (object.spec.clusterIP !== "None") allocateClusterIP(object);
      object.spec.ipFamilies = ["IPv4"];
      object.spec.ipFamilyPolicy = "SingleStack";
      object.status = { loadBalancer: {} };
    }
    if (type.plural === "secrets") object.type ??= "Opaque";
  }

  // ---- HTTP ----

  function answer(res: ServerResponse, code: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  function listBody(type: ResourceType, items: KubeObject[]): KubeObject {
    return {
      kind: `${type.kind}List`,
      apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
      metadata: { resourceVersion: String(resourceVersion) },
      // Items of a list carry neither kind nor apiVersion.
      items: items.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => clone(rest)),
    };
  }

  function selected(type: ResourceType, namespace: string, query: URLSearchParams): KubeObject[] {
    const requirements = parseLabelSelector(query.get("labelSelector") ?? "");
    const nameField = /^metadata\.name=(.+)$/.exec(query.get("fieldSelector") ?? "")?.[1] ?? null;
    return list(type, namespace)
      .filter((object) => matchesSelector(object.metadata.labels, requirements))
      .filter((object) => nameField === null || object.metadata.name === nameField);
  }

  function openWatch(
    type: ResourceType,
    namespace: string,
    query: URLSearchParams,
    res: ServerResponse,
  ): void {
    const stream: WatchStream = {
      type,
      namespace,
      requirements: parseLabelSelector(query.get("labelSelector") ?? ""),
      name: /^metadata\.name=(.+)$/.exec(query.get("fieldSelector") ?? "")?.[1] ?? null,
      res,
    };
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    const since = query.get("resourceVersion");
    if (since && since !== "0") {
      for (const event of history)
        if (
          event.rv > Number(since) &&
          event.plural === type.plural &&
          event.object.metadata.namespace === namespace
        )
          if (
            (!stream.name || stream.name === event.object.metadata.name) &&
            matchesSelector(event.object.metadata.labels, stream.requirements)
          )
            res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    } else {
      for (const object of selected(type, namespace, query))
        res.write(`${JSON.stringify({ type: "ADDED", object })}\n`);
    }
    streams.add(stream);
    const timeout = Number(query.get("timeoutSeconds") ?? 0);
    const timer = timeout > 0 ? setTimeout(() => res.end(), timeout * 1000) : null;
    res.on("close", () => {
      if (timer) clearTimeout(timer);
      streams.delete(stream);
    });
  }

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://127.0.0.1");
    const method = req.method ?? "GET";
    const text = await readBody(req);
    const contentType = req.headers["content-type"]?.split(";")[0]?.trim();
    let body: unknown;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    requests.push({ method, path: url.pathname, query: url.searchParams, contentType, body });
    if (req.headers.authorization !== `Bearer ${token}`)
      return answer(res, 401, statusBody(401, "Unauthorized", "Unauthorized"));

    if (url.pathname === "/version")
      return answer(res, 200, { major: "1", minor: "36", gitVersion: "v1.36.0-fake" });

    const metrics = /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(
      url.pathname,
    );
    if (metrics) {
      if (!fake.metricsApi)
        return answer(
          res,
          404,
          statusBody(404, "NotFound", "the server could not find the requested resource", {}),
        );
      const sample = fake.podMetrics.get(`${metrics[1]}/${metrics[2]}`);
      const pod = store.get(`pods/${metrics[1]}/${metrics[2]}`);
      if (!sample || !pod)
        return answer(
          res,
          404,
          statusBody(404, "NotFound", `podmetrics.metrics.k8s.io "${metrics[1]}/${metrics[2]}" not found`, {
            name: metrics[2],
            group: "metrics.k8s.io",
            kind: "pods",
          }),
        );
      return answer(res, 200, {
        kind: "PodMetrics",
        apiVersion: "metrics.k8s.io/v1beta1",
        metadata: { name: metrics[2], namespace: metrics[1] },
        timestamp: new Date().toISOString(),
        window: "15s",
        containers: (pod.spec.containers ?? []).map((c: KubeObject) => ({ name: c.name, usage: sample })),
      });
    }

    const route =
      /^\/(?:api\/v1|apis\/([^/]+)\/v1)\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/(log|status))?$/.exec(
        url.pathname,
      );
    const type = route ? TYPES.find((t) => t.plural === route[3] && t.group === (route[1] ?? "")) : undefined;
    if (!route || !type)
      return answer(
        res,
        404,
        statusBody(404, "NotFound", "the server could not find the requested resource", {}),
      );

    const failureIndex = failures.findIndex((f) => f.method === method && f.plural === type.plural);
    if (failureIndex !== -1) {
      const [{ failure }] = failures.splice(failureIndex, 1);
      if ("drop" in failure) {
        req.socket.destroy();
        return;
      }
      return answer(
        res,
        failure.status,
        statusBody(
          failure.status,
          "InternalError",
          failure.message ?? "Internal error occurred: injected by the test",
        ),
      );
    }

    const namespace = route[2];
    const name = route[4] ? decodeURIComponent(route[4]) : null;
    const subresource = route[5];
    const apiVersion = type.group ? `${type.group}/${type.version}` : type.version;

    if (subresource === "log") {
      const pod = name ? store.get(keyOf(type, namespace, name)) : undefined;
      if (!pod || !name) throw notFound(type, name ?? "");
      const container = url.searchParams.get("container") ?? pod.spec.containers[0].name;
      if (!pod.spec.containers.some((c: KubeObject) => c.name === container))
        return answer(
          res,
          400,
          statusBody(400, "BadRequest", `container ${container} is not valid for pod ${name}`),
        );
      let lines = logs.get(`${namespace}/${name}`) ?? [];
      const tail = Number(url.searchParams.get("tailLines") ?? 0);
      if (tail > 0) lines = lines.slice(-tail);
      if (url.searchParams.get("timestamps") !== "true")
        lines = lines.map((line) => line.slice(line.indexOf(" ") + 1));
      const out = lines.map((line) => `${line}\n`).join("");
      res.writeHead(200, { "content-type": "text/plain", "content-length": Buffer.byteLength(out) });
      res.end(out);
      return;
    }

    if (!name) {
      if (method === "GET" && url.searchParams.get("watch") === "true")
        return openWatch(type, namespace, url.searchParams, res);
      if (method === "GET")
        return answer(res, 200, listBody(type, selected(type, namespace, url.searchParams)));
      if (method === "POST") {
        if (!isObject(body) || !isObject(body.metadata))
          return answer(res, 400, statusBody(400, "BadRequest", "the body of the request was not an object"));
        if (body.kind !== undefined && body.kind !== type.kind)
          return answer(
            res,
            400,
            statusBody(
              400,
              "BadRequest",
              `the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersion})`,
            ),
          );
        const object = clone(body);
        validate(type, object);
        if (store.has(keyOf(type, namespace, object.metadata.name)))
          return answer(
            res,
            409,
            statusBody(409, "AlreadyExists", `${qualified(type)} "${object.metadata.name}" already exists`, {
              name: object.metadata.name,
              group: type.group,
              kind: type.plural,
            }),
          );
        defaults(type, object, namespace);
        if (type.plural === "services") await openProxy(object);
        put(type, object, "ADDED");
        written.push({ method, kind: type.kind, object: clone(body) });
        return answer(res, 201, object);
      }
      if (method === "DELETE") {
        for (const object of selected(type, namespace, url.searchParams))
          remove(type, object, url.searchParams.get("propagationPolicy") ?? "Background");
        return answer(res, 200, listBody(type, []));
      }
      return answer(
        res,
        405,
        statusBody(
          405,
          "MethodNotAllowed",
          "the server does not allow this method on the requested resource",
        ),
      );
    }

    const existing = store.get(keyOf(type, namespace, name));
    if (method === "GET") {
      if (!existing) throw notFound(type, name);
      return answer(res, 200, existing);
    }
    if (method === "DELETE") {
      if (!existing) throw notFound(type, name);
      const options = isObject(body) ? body : {};
      const propagation =
        url.searchParams.get("propagationPolicy") ?? options.propagationPolicy ?? "Background";
      const result = remove(type, existing, propagation);
      return answer(
        res,
        200,
        store.has(keyOf(type, namespace, name))
          ? result
          : {
              kind: "Status",
              apiVersion: "v1",
              metadata: {},
              status: "Success",
              details: { name, group: type.group, kind: type.plural, uid: existing.metadata.uid },
            },
      );
    }
    if (method === "PUT" || method === "PATCH") {
      if (!existing) throw notFound(type, name);
      let next: KubeObject;
      if (method === "PUT") {
        if (!isObject(body) || !isObject(body.metadata))
          return answer(res, 400, statusBody(400, "BadRequest", "the body of the request was not an object"));
        const given = body.metadata.resourceVersion;
        if (given !== undefined && given !== existing.metadata.resourceVersion)
          return answer(
            res,
            409,
            statusBody(
              409,
              "Conflict",
              `Operation cannot be fulfilled on ${qualified(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
              { name, group: type.group, kind: type.plural },
            ),
          );
        next = clone(body);
      } else {
        if (!contentType || !PATCH_TYPES.includes(contentType))
          return answer(
            res,
            415,
            statusBody(
              415,
              "UnsupportedMediaType",
              `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(", ")}`,
            ),
          );
        try {
          next = (
            contentType === "application/json-patch+json"
              ? jsonPatch(existing, body)
              : contentType === "application/merge-patch+json"
                ? mergePatch(existing, body)
                : strategicMergePatch(existing, body)
          ) as KubeObject;
        } catch (err) {
          return answer(
            res,
            422,
            statusBody(422, "Invalid", `the patch could not be applied: ${(err as Error).message}`),
          );
        }
      }
      // What the client may not change: identity, server-owned metadata and (through the main resource) status.
      next.apiVersion = existing.apiVersion;
      next.kind = existing.kind;
      next.metadata = {
        ...next.metadata,
        name,
        namespace,
        uid: existing.metadata.uid,
        creationTimestamp: existing.metadata.creationTimestamp,
        deletionTimestamp: existing.metadata.deletionTimestamp,
        generation: existing.metadata.generation,
      };
      next.status = existing.status;
      if (type.plural === "services") {
        next.spec.clusterIP ||= existing.spec.clusterIP;
        next.spec.clusterIPs ??= existing.spec.clusterIPs;
      }
      validate(type, next, existing);
      if (type.plural === "statefulsets" && JSON.stringify(next.spec) !== JSON.stringify(existing.spec))
        next.metadata.generation = (existing.metadata.generation ?? 1) + 1;
      put(type, next, "MODIFIED");
      written.push({ method, kind: type.kind, object: clone(method === "PUT" ? body : next) });
      if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) drop(type, next);
      return answer(res, 200, next);
    }
    return answer(
      res,
      405,
      statusBody(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"),
    );
  }

  // ---- the cluster ----

  let pending: Promise<void> | null = null;
  let again = false;
  function schedule(): void {
    if (closed) return;
    if (pending) {
      again = true;
      return;
    }
    pending = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      do {
        again = false;
        await reconcile();
      } while (again && !closed);
      pending = null;
    });
  }

  function revisionOf(statefulSet: KubeObject): string {
    return `${statefulSet.metadata.name}-${sha256Hex(JSON.stringify(statefulSet.spec.template)).slice(0, 10)}`;
  }

  function ready(pod: KubeObject | undefined): boolean {
    return (
      !!pod &&
      !pod.metadata.deletionTimestamp &&
      (pod.status?.conditions ?? []).some((c: KubeObject) => c.type === "Ready" && c.status === "True")
    );
  }

  async function reconcile(): Promise<void> {
    const sts = typeOf("statefulsets");
    const podType = typeOf("pods");
    const claimType = typeOf("persistentvolumeclaims");

    // The garbage collector: dependents of a deleted (or foreground-deleting) owner go.
    for (const type of TYPES) {
      for (const object of list(type)) {
        const refs: KubeObject[] = object.metadata.ownerReferences ?? [];
        if (refs.length === 0 || object.metadata.deletionTimestamp) continue;
        const owners = refs.map((ref) =>
          [...TYPES.flatMap((t) => list(t, object.metadata.namespace))].find(
            (o) => o.metadata.uid === ref.uid,
          ),
        );
        const orphaned = owners.every(
          (owner) =>
            !owner ||
            (owner.metadata.deletionTimestamp &&
              (owner.metadata.finalizers ?? []).includes("foregroundDeletion")),
        );
        if (orphaned) remove(type, object, "Background");
      }
    }
    for (const type of TYPES)
      for (const owner of list(type)) {
        const finalizers: string[] = owner.metadata.finalizers ?? [];
        if (
          owner.metadata.deletionTimestamp &&
          finalizers.includes("foregroundDeletion") &&
          dependentsOf(owner).length === 0
        ) {
          owner.metadata.finalizers = finalizers.filter((f) => f !== "foregroundDeletion");
          if (owner.metadata.finalizers.length === 0) drop(type, owner);
          else put(type, owner, "MODIFIED");
        }
      }

    // The StatefulSet controller.
    for (const statefulSet of list(sts)) {
      if (statefulSet.metadata.deletionTimestamp) continue;
      const { name, namespace } = statefulSet.metadata;
      const podName = `${name}-0`;
      const pod = store.get(keyOf(podType, namespace, podName));
      const revision = revisionOf(statefulSet);
      const replicas = statefulSet.spec.replicas ?? 1;
      if (replicas >= 1 && !pod) {
        for (const template of statefulSet.spec.volumeClaimTemplates ?? []) {
          const claimName = `${template.metadata.name}-${name}-0`;
          if (store.has(keyOf(claimType, namespace, claimName))) continue;
          const claim: KubeObject = {
            metadata: {
              name: claimName,
              labels: { ...template.metadata.labels, ...statefulSet.spec.selector.matchLabels },
              finalizers: ["kubernetes.io/pvc-protection"],
              ownerReferences:
                statefulSet.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === "Delete"
                  ? [
                      {
                        apiVersion: "apps/v1",
                        kind: "StatefulSet",
                        name,
                        uid: statefulSet.metadata.uid,
                        controller: true,
                        blockOwnerDeletion: true,
                      },
                    ]
                  : undefined,
            },
            spec: clone(template.spec),
          };
          defaults(claimType, claim, namespace);
          claim.status = {
            phase: "Bound",
            accessModes: template.spec.accessModes,
            capacity: template.spec.resources?.requests,
          };
          put(claimType, claim, "ADDED");
        }
        const template = clone(statefulSet.spec.template);
        const spec = template.spec;
        spec.hostname = podName;
        spec.subdomain = statefulSet.spec.serviceName;
        spec.volumes = [
          ...(spec.volumes ?? []),
          ...(statefulSet.spec.volumeClaimTemplates ?? []).map((t: KubeObject) => ({
            name: t.metadata.name,
            persistentVolumeClaim: { claimName: `${t.metadata.name}-${name}-0` },
          })),
        ];
        const created: KubeObject = {
          metadata: {
            name: podName,
            labels: {
              ...template.metadata?.labels,
              "controller-revision-hash": revision,
              "statefulset.kubernetes.io/pod-name": podName,
              "apps.kubernetes.io/pod-index": "0",
            },
            annotations: template.metadata?.annotations,
            ownerReferences: [
              {
                apiVersion: "apps/v1",
                kind: "StatefulSet",
                name,
                uid: statefulSet.metadata.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec,
        };
        defaults(podType, created, namespace);
        created.status = { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True" }] };
        put(podType, created, "ADDED");
      } else if (pod && !pod.metadata.deletionTimestamp) {
        if (replicas === 0) remove(podType, pod, "Background");
        // A rolling update replaces a healthy pod only; an unhealthy one blocks it (as in the real controller).
        else if (pod.metadata.labels?.["controller-revision-hash"] !== revision && ready(pod))
          remove(podType, pod, "Background");
      }
      const current = store.get(keyOf(podType, namespace, podName));
      const status = {
        observedGeneration: statefulSet.metadata.generation,
        replicas: current ? 1 : 0,
        readyReplicas: ready(current) ? 1 : 0,
        availableReplicas: ready(current) ? 1 : 0,
        currentReplicas: current ? 1 : 0,
        updatedReplicas: current?.metadata.labels?.["controller-revision-hash"] === revision ? 1 : 0,
        currentRevision: current?.metadata.labels?.["controller-revision-hash"] ?? revision,
        updateRevision: revision,
      };
      if (JSON.stringify(status) !== JSON.stringify(statefulSet.status)) {
        statefulSet.status = status;
        put(sts, statefulSet, "MODIFIED");
      }
    }

    // Volume claim protection: a claim being deleted goes once no pod uses it.
    for (const claim of list(claimType)) {
      if (!claim.metadata.deletionTimestamp) continue;
      const used = list(podType, claim.metadata.namespace).some((p) =>
        (p.spec.volumes ?? []).some(
          (v: KubeObject) => v.persistentVolumeClaim?.claimName === claim.metadata.name,
        ),
      );
      if (!used) {
        claim.metadata.finalizers = (claim.metadata.finalizers ?? []).filter(
          (f: string) => f !== "kubernetes.io/pvc-protection",
        );
        if (claim.metadata.finalizers.length === 0) drop(claimType, claim);
        else put(claimType, claim, "MODIFIED");
      }
    }

    // The kubelet.
    for (const pod of list(podType)) await kubelet(pod);
  }

  async function kubelet(pod: KubeObject): Promise<void> {
    const podType = typeOf("pods");
    const { namespace, name } = pod.metadata;
    const key = `${namespace}/${name}`;
    const runtime = pods.get(key) ?? { agent: null, starting: false };
    pods.set(key, runtime);
    if (pod.metadata.deletionTimestamp) {
      await runtime.agent?.close();
      runtime.agent = null;
      pods.delete(key);
      if (store.get(keyOf(podType, namespace, name)) === pod) drop(podType, pod);
      return;
    }
    if (runtime.agent || runtime.starting || pod.status?.phase === "Running") return;
    const container = pod.spec.containers[0];
    const waiting = (reason: string, message?: string) => {
      const state = { waiting: { reason, ...(message ? { message } : {}) } };
      if (JSON.stringify(pod.status.containerStatuses?.[0]?.state) === JSON.stringify(state)) return;
      pod.status = {
        ...pod.status,
        phase: "Pending",
        containerStatuses: [
          {
            name: container.name,
            image: container.image,
            imageID: "",
            ready: false,
            started: false,
            restartCount: 0,
            state,
          },
        ],
      };
      put(podType, pod, "MODIFIED");
    };
    const missingSecret = (pod.spec.volumes ?? []).find(
      (v: KubeObject) => v.secret && !store.has(`secrets/${namespace}/${v.secret.secretName}`),
    );
    if (missingSecret)
      return waiting(
        "ContainerCreating",
        `MountVolume.SetUp failed for volume "${missingSecret.name}": secret "${missingSecret.secret.secretName}" not found`,
      );
    if (fake.unpullable.has(container.image))
      return waiting("ImagePullBackOff", `Back-off pulling image "${container.image}": manifest unknown`);
    runtime.starting = true;
    const env = Object.fromEntries(
      (container.env ?? [])
        .filter((e: KubeObject) => e.value !== undefined)
        .map((e: KubeObject) => [e.name, e.value]),
    );
    const agent = await startFakeAgentRuntime({ wrapper: true, openWithoutToken: true, env });
    runtime.starting = false;
    const live = store.get(keyOf(podType, namespace, name));
    if (closed || live !== pod || pod.metadata.deletionTimestamp) {
      await agent.close();
      schedule();
      return;
    }
    runtime.agent = agent;
    const startedAt = new Date().toISOString();
    pod.status = {
      phase: "Running",
      podIP: "127.0.0.1",
      startTime: startedAt,
      conditions: [
        { type: "PodScheduled", status: "True" },
        { type: "Initialized", status: "True" },
        { type: "ContainersReady", status: "False" },
        { type: "Ready", status: "False" },
      ],
      containerStatuses: [
        {
          name: container.name,
          image: container.image,
          imageID: `${container.image}@sha256:${sha256Hex(container.image)}`,
          ready: false,
          started: true,
          restartCount: 0,
          state: { running: { startedAt } },
        },
      ],
    };
    put(podType, pod, "MODIFIED");
    logs.set(key, [
      ...(logs.get(key) ?? []),
      `${startedAt} wrapper listening on ${container.ports?.[0]?.containerPort ?? 8080}`,
    ]);
    void probeUntilReady(pod, agent);
  }

  /** The readinessProbe's httpGet against the pod's agent, until it passes (or the pod is gone). */
  async function probeUntilReady(pod: KubeObject, agent: FakeAgentRuntime): Promise<void> {
    const podType = typeOf("pods");
    const path = pod.spec.containers[0].readinessProbe?.httpGet?.path ?? "/";
    for (let attempt = 0; attempt < 600 && !closed; attempt++) {
      const live = store.get(keyOf(podType, pod.metadata.namespace, pod.metadata.name));
      if (
        live !== pod ||
        pod.metadata.deletionTimestamp ||
        pods.get(`${pod.metadata.namespace}/${pod.metadata.name}`)?.agent !== agent
      )
        return;
      const ok = await fetch(`${agent.url}${path}`).then(
        (r) => r.status >= 200 && r.status < 400,
        () => false,
      );
      if (ok) {
        pod.status.conditions = pod.status.conditions.map((c: KubeObject) =>
          c.type === "Ready" || c.type === "ContainersReady" ? { ...c, status: "True" } : c,
        );
        pod.status.containerStatuses[0].ready = true;
        put(podType, pod, "MODIFIED");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  // ---- kube-proxy ----

  function allocateClusterIP(service: KubeObject): void {
    ipSequence = (ipSequence % 65_000) + 1;
    const ip = `127.${ipBase}.${Math.floor(ipSequence / 256) % 256}.${(ipSequence % 254) + 1}`;
    service.spec.clusterIP = ip;
    service.spec.clusterIPs = [ip];
  }

  /** Listens on the Service's cluster IP and ports; an address in use elsewhere gets the next IP. */
  async function openProxy(service: KubeObject): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await listenProxy(service);
        return;
      } catch (err) {
        if (attempt >= 20 || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
        allocateClusterIP(service);
      }
    }
  }

  async function listenProxy(service: KubeObject): Promise<void> {
    const ip = service.spec.clusterIP;
    if (!ip || ip === "None") return;
    const servers: TcpServer[] = [];
    for (const port of service.spec.ports ?? []) {
      const server = createTcpServer((client: Socket) => {
        const current = store.get(
          keyOf(typeOf("services"), service.metadata.namespace, service.metadata.name),
        );
        const selector = Object.entries(current?.spec.selector ?? {}).map(([k, v]) => ({
          key: k,
          op: "=" as const,
          values: [String(v)],
        }));
        const endpoint = list(typeOf("pods"), service.metadata.namespace).find(
          (p) => ready(p) && matchesSelector(p.metadata.labels, selector),
        );
        const agent = endpoint
          ? pods.get(`${endpoint.metadata.namespace}/${endpoint.metadata.name}`)?.agent
          : null;
        if (!agent) {
          client.destroy();
          return;
        }
        const upstream = createConnection({ host: "127.0.0.1", port: agent.port });
        client.pipe(upstream).pipe(client);
        const end = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on("error", end);
        upstream.on("error", end);
        client.on("close", end);
        upstream.on("close", end);
      });
      try {
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(port.port, ip, () => resolve());
        });
      } catch (err) {
        for (const opened of servers) opened.close();
        throw err;
      }
      servers.push(server);
    }
    proxies.set(service.metadata.uid, servers);
  }

  function closeProxy(service: KubeObject): void {
    for (const server of proxies.get(service.metadata.uid) ?? []) server.close();
    proxies.delete(service.metadata.uid);
  }

  const server: Server = createServer({ cert, key }, (req, res) => {
    handle(req, res).catch((err) => {
      if (err instanceof HttpFailure) return answer(res, err.code, err.body);
      if (!res.headersSent)
        answer(res, 500, statusBody(500, "InternalError", `Internal error occurred: ${String(err)}`));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;
  const serverUrl = `https://127.0.0.1:${port}`;
  const kubeconfig = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: fake",
    "  cluster:",
    `    server: ${serverUrl}`,
    `    certificate-authority-data: ${cert.toString("base64")}`,
    "users:",
    "- name: fake",
    "  user:",
    `    token: ${token}`,
    "contexts:",
    "- name: fake",
    "  context:",
    "    cluster: fake",
    "    user: fake",
    "current-context: fake",
    "",
  ].join("\n");

  const fake: FakeKubernetes = {
    server: serverUrl,
    token,
    kubeconfig,
    async writeKubeconfig() {
      const dir = await mkdtemp(join(tmpdir(), "fake-kube-"));
      const path = join(dir, "kubeconfig");
      await writeFile(path, kubeconfig, { mode: 0o600 });
      return path;
    },
    requests,
    written,
    unpullable: new Set(),
    metricsApi: options.metricsApi ?? false,
    podMetrics: new Map(),
    failNext(method, plural, failure = { status: 500 }) {
      failures.push({ method, plural, failure });
    },
    objects: (plural, namespace) => list(typeOf(plural), namespace).map(clone),
    get: (plural, namespace, name) => {
      const object = store.get(keyOf(typeOf(plural), namespace, name));
      return object ? clone(object) : undefined;
    },
    agentOf: (namespace, pod) => pods.get(`${namespace}/${pod}`)?.agent ?? undefined,
    secretFiles(namespace, podName) {
      const pod = store.get(keyOf(typeOf("pods"), namespace, podName));
      const files: Record<string, string> = {};
      for (const container of pod?.spec.containers ?? [])
        for (const mount of container.volumeMounts ?? []) {
          const volume = (pod?.spec.volumes ?? []).find((v: KubeObject) => v.name === mount.name);
          const secret = volume?.secret
            ? store.get(`secrets/${namespace}/${volume.secret.secretName}`)
            : undefined;
          for (const item of volume?.secret?.items ??
            Object.keys(secret?.data ?? {}).map((k) => ({ key: k, path: k })))
            if (secret?.data?.[item.key] !== undefined)
              files[`${mount.mountPath}/${item.path}`] = Buffer.from(
                secret.data[item.key],
                "base64",
              ).toString("utf8");
        }
      return files;
    },
    async crashPod(namespace, podName, crash = {}) {
      const podType = typeOf("pods");
      const pod = store.get(keyOf(podType, namespace, podName));
      const runtime = pods.get(`${namespace}/${podName}`);
      if (!pod || !runtime?.agent) throw new Error(`pod ${namespace}/${podName} is not running`);
      await runtime.agent.close();
      runtime.agent = null;
      const status = pod.status.containerStatuses[0];
      pod.status.conditions = pod.status.conditions.map((c: KubeObject) =>
        c.type === "Ready" || c.type === "ContainersReady" ? { ...c, status: "False" } : c,
      );
      pod.status.containerStatuses = [
        {
          ...status,
          ready: false,
          started: false,
          restartCount: status.restartCount + 1,
          state: {
            waiting: {
              reason: "CrashLoopBackOff",
              message: `back-off 10s restarting failed container=${status.name} pod=${podName}`,
            },
          },
          lastState: {
            terminated: crash.oomKilled
              ? { exitCode: 137, reason: "OOMKilled" }
              : { exitCode: 1, reason: "Error" },
          },
        },
      ];
      put(podType, pod, "MODIFIED");
    },
    appendLog(namespace, podName, line, at = new Date()) {
      const key = `${namespace}/${podName}`;
      logs.set(key, [...(logs.get(key) ?? []), `${at.toISOString()} ${line}`]);
    },
    async settled() {
      while (pending) await pending;
    },
    async close() {
      closed = true;
      for (const stream of streams) stream.res.end();
      streams.clear();
      while (pending) await pending;
      for (const runtime of pods.values()) await runtime.agent?.close();
      pods.clear();
      for (const servers of proxies.values()) for (const s of servers) s.close();
      proxies.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
