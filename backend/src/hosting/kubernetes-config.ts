/**
 * The kubernetes hosting driver's variables (spread into the backend's envSchema). Defaults size an agent
 * from the runtime's measured idle RSS (bench/RESULTS.md, runtime: wrapper + OpenClaw 604 MB, of which
 * the wrapper 120–157 MB): a request of 768Mi leaves a quarter above idle, a limit of 1536Mi room for
 * chats and the tools the agent runs.
 */
import { csv, positiveInt } from "@svc/common";
import { z } from "zod";

/** A DNS-1123 label: namespaces, and the names the driver builds. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
/** A resource quantity (`768Mi`, `250m`, `1`, `2Gi`). */
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;

const namespace = (fallback: string) =>
  z
    .string()
    .max(63)
    .regex(DNS_LABEL, "must be a DNS label (lower case letters, digits, -)")
    .default(fallback);

const quantity = (fallback: string) =>
  z.string().regex(QUANTITY, "must be a Kubernetes quantity like 768Mi, 2Gi, 250m or 1").default(fallback);

/** `key=value,key=value`: the labels a pod must carry (a NetworkPolicy's matchLabels). */
function matchLabels(fallback: string) {
  return z
    .string()
    .default(fallback)
    .transform((text, ctx): Record<string, string> => {
      const labels: Record<string, string> = {};
      for (const pair of text.split(",").map((item) => item.trim())) {
        const [key, value, extra] = pair.split("=");
        if (extra !== undefined || value === undefined || !LABEL_KEY.test(key) || !LABEL_VALUE.test(value)) {
          ctx.addIssue({
            code: "custom",
            message: `must be key=value pairs joined by commas (at "${pair}")`,
          });
          return z.NEVER;
        }
        labels[key] = value;
      }
      return labels;
    });
}

export const kubernetesEnv = {
  /**
   * The kubeconfig file of the cluster agents run in (its current context). Unset: the backend's own
   * service account, when it runs in the cluster.
   */
  KUBECONFIG: z.string().optional(),
  /** Set by Kubernetes in every pod: the backend runs in a cluster and may use its service account. */
  KUBERNETES_SERVICE_HOST: z.string().optional(),
  /** The namespace every agent's objects are created in (the backend's Role is bound there). */
  KUBERNETES_NAMESPACE: namespace("agents"),
  /** The platform's namespace: its pods may call agents, and agents may call its backend (NetworkPolicy). */
  KUBERNETES_PLATFORM_NAMESPACE: namespace("agent-platform"),
  /** Labels of the platform's pods that may call agents (web, backend, summarizer). */
  KUBERNETES_PLATFORM_POD_LABELS: matchLabels("app.kubernetes.io/part-of=agent-platform"),
  /** Labels of the backend's pods: agents reach them (their AI provider and classify hook) on BACKEND_PORT. */
  KUBERNETES_BACKEND_POD_LABELS: matchLabels(
    "app.kubernetes.io/part-of=agent-platform,app.kubernetes.io/component=backend",
  ),
  /** Plans whose agents may also reach the public internet (never private ranges or the metadata address). */
  KUBERNETES_INTERNET_PLANS: csv(),
  /** RuntimeClass of agent pods (e.g. `gvisor`, `kata`); unset: the cluster's default runtime. */
  KUBERNETES_RUNTIME_CLASS: z.string().regex(DNS_LABEL, "must be a RuntimeClass name").optional(),
  /** StorageClass of each agent's state volume; unset: the cluster's default class. */
  KUBERNETES_STORAGE_CLASS: z.string().optional(),
  KUBERNETES_VOLUME_SIZE: quantity("2Gi"),
  KUBERNETES_AGENT_CPU_REQUEST: quantity("250m"),
  KUBERNETES_AGENT_CPU_LIMIT: quantity("1"),
  KUBERNETES_AGENT_MEMORY_REQUEST: quantity("768Mi"),
  KUBERNETES_AGENT_MEMORY_LIMIT: quantity("1536Mi"),
  /** A docker-registry Secret in KUBERNETES_NAMESPACE for pulling AGENT_IMAGE from a private registry. */
  KUBERNETES_IMAGE_PULL_SECRET: z.string().optional(),
  /** How long a deploy waits for the agent's pod to be ready (an image pull counts). */
  KUBERNETES_ROLLOUT_TIMEOUT_MS: positiveInt(5 * 60_000),
};
