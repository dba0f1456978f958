/**
 * The checklist's words for the capabilities the backend owns (its `GET /api/setup` facts): the AI
 * provider, the hosting driver, the agent runtime; "not checked" when the backend did not answer.
 */
import { urlWithoutSecrets } from "@svc/common/setup";
import type { BackendFacts } from "./backend-facts";
import { type Capability, type Config, capability } from "./capabilities";
import type { CapabilityId, SetupVariable } from "./inputs";

const backendVariable = (
  name: string,
  isSet: boolean | null,
  meaning: string,
  { required = true, value = null }: { required?: boolean; value?: string | null } = {},
): SetupVariable => ({ name, service: "backend", required, isSet, value, meaning });

/** A backend capability that cannot be checked: the backend did not answer. */
function unknownOnBackend(id: CapabilityId, name: string, config: Config, reason: string): Capability {
  return {
    detail: capability(id, name, {
      state: "unknown",
      summary: `Not checked: ${reason}.`,
      action: `Start the backend (npm start runs it); the web reaches it at BACKEND_URL (${urlWithoutSecrets(config.BACKEND_URL)}) with INTERNAL_API_KEY.`,
      restartNeeded: false,
    }),
    available: true,
    userMessage: null,
  };
}

export function aiProviderCapability(config: Config, facts: BackendFacts): Capability {
  const name = "AI provider";
  if (!facts.reachable) return unknownOnBackend("ai_provider", name, config, facts.reason);
  const ai = facts.setup.aiProvider;
  const variables = [
    backendVariable("AI_PROVIDER_KEY", ai.configured, "the provider's API key"),
    backendVariable("AI_PROVIDER_URL", null, "its OpenAI-compatible base URL (default OpenRouter's)", {
      required: false,
      value: ai.url,
    }),
    backendVariable("AI_DEFAULT_MODEL", null, "the model agents use", {
      required: false,
      value: ai.defaultModel,
    }),
  ];
  if (ai.configured) {
    return {
      detail: capability("ai_provider", name, {
        state: "ready",
        summary: `Agents answer through ${ai.provider} at ${ai.url} (default model ${ai.defaultModel}).`,
        variables,
      }),
      available: true,
      userMessage: null,
    };
  }
  return {
    detail: capability("ai_provider", name, {
      state: "off",
      summary: "Chat, scheduled tasks, persona evaluation and the gateway's AI plugins fail until it is set.",
      action: `Set AI_PROVIDER_KEY for the backend (an API key of ${ai.url}, or set AI_PROVIDER_URL to another OpenAI-compatible provider).`,
      variables,
    }),
    available: false,
    userMessage:
      "Chat with your agent, scheduled tasks and persona evaluation: this server has no AI provider set up yet, so agents cannot answer.",
  };
}

const DRIVER_WORDS = {
  local: "processes on this machine (the local driver)",
  docker: "containers of a Docker Engine (DOCKER_HOST)",
  railway: "Railway services",
  kubernetes: "StatefulSets of a Kubernetes cluster (KUBECONFIG or the backend's service account)",
} as const;

export function hostingCapability(config: Config, facts: BackendFacts): Capability {
  const name = "Hosting driver";
  if (!facts.reachable) return unknownOnBackend("hosting", name, config, facts.reason);
  const hosting = facts.setup.hosting;
  const variables = [
    backendVariable("HOSTING_PROVIDER", null, "local, docker, railway or kubernetes", {
      required: false,
      value: hosting.driver,
    }),
    ...(hosting.driver === "railway"
      ? [
          ["HOSTING_API_KEY", "Railway API token"],
          ["HOSTING_PROJECT_ID", "the Railway project agents are created in"],
          ["HOSTING_ENVIRONMENT_ID", "that project's environment"],
        ].map(([variable, meaning]) =>
          backendVariable(variable, !hosting.missing.includes(variable), meaning),
        )
      : []),
    ...(hosting.driver === "docker"
      ? [backendVariable("DOCKER_HOST", null, "the Docker Engine API", { required: false })]
      : []),
    ...(hosting.driver === "kubernetes"
      ? [
          backendVariable(
            "KUBECONFIG",
            null,
            "the cluster's kubeconfig (unset: the in-cluster service account)",
            {
              required: false,
            },
          ),
          backendVariable("KUBERNETES_NAMESPACE", null, "the namespace agents run in", { required: false }),
        ]
      : []),
  ];
  if (hosting.ready) {
    return {
      detail: capability("hosting", name, {
        state: "ready",
        summary: `Agents run as ${DRIVER_WORDS[hosting.driver]}; the driver answers.`,
        variables,
      }),
      available: true,
      userMessage: null,
    };
  }
  return {
    detail: capability("hosting", name, {
      state: "off",
      summary: `Deploys fail: the ${hosting.driver} driver does not answer (${hosting.reason}).`,
      action:
        hosting.missing.length > 0
          ? `Set ${hosting.missing.join(", ")} for the backend.`
          : hosting.driver === "docker"
            ? "Make the Docker Engine reachable at DOCKER_HOST (or set HOSTING_PROVIDER=local)."
            : hosting.driver === "kubernetes"
              ? "Give the backend the cluster: KUBECONFIG, or its service account with the Role of docs/kubernetes.md in KUBERNETES_NAMESPACE."
              : hosting.driver === "railway"
                ? "Check HOSTING_API_KEY (a project token also needs HOSTING_TOKEN_TYPE=project)."
                : "Fix the cause named above (the backend's log has the details); the driver is asked again every 30 s.",
      variables,
      restartNeeded: hosting.missing.length > 0,
    }),
    available: false,
    userMessage: "Deploying an agent: this server cannot start agents right now.",
  };
}

export function agentRuntimeCapability(config: Config, facts: BackendFacts): Capability {
  const name = "Agent runtime";
  if (!facts.reachable) return unknownOnBackend("agent_runtime", name, config, facts.reason);
  const runtime = facts.setup.runtime;
  const done = (detail: Parameters<typeof capability>[2]): Capability => ({
    detail: capability("agent_runtime", name, detail),
    available: true,
    userMessage: null,
  });
  if (runtime.kind === "command") {
    return done({
      state: "attention",
      summary:
        "Local agents run LOCAL_RUNTIME_COMMAND as given: the platform cannot verify that its permission plugin asks before each tool call.",
      action: "Unset LOCAL_RUNTIME_COMMAND to run the managed OpenClaw instead.",
      variables: [backendVariable("LOCAL_RUNTIME_COMMAND", true, "the runtime command each agent runs")],
    });
  }
  if (runtime.kind === "image") {
    return done({
      state: "unknown",
      summary: `Agents run the image ${runtime.image}; whether the driver can find it is not checked from here.`,
      action: `Build it with: docker build -f Dockerfile.agent -t ${runtime.image} . (and push it where the driver pulls from).`,
      variables: [
        backendVariable("AGENT_IMAGE", null, "the image agents run", {
          required: false,
          value: runtime.image,
        }),
      ],
      restartNeeded: false,
    });
  }
  if (runtime.installed) {
    return done({
      state: "ready",
      summary: `OpenClaw ${runtime.version} is installed in ${runtime.dir}.`,
      restartNeeded: false,
    });
  }
  return done({
    state: "attention",
    summary: `OpenClaw ${runtime.version} is not installed yet: the first deploy installs it from the npm registry into ${runtime.dir} (about 1.2 GB, a minute or two).`,
    action: "Install it now, so the first deploy does not wait (no restart needed):",
    command: "npm run runtime:install",
    restartNeeded: false,
  });
}
