/**
 * Containers: reads (ps, images, logs, inspect; kubectl get/describe/logs) are safe, writes dangerous
 * (run/exec also classify the command run inside), prunes and deleting namespaces/volumes/nodes are
 * destructive, as are containers started with host privileges (`--privileged`, `-v /:/host`).
 */
import { firstPositional, type OptionSpec, optionSpec, parseArgs } from "../options";
import { normalizePath } from "../paths";
import { type Invocation, register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";

function containerRead(what: string): Classification {
  return safe("container-read", `container read: ${shown(what)}`);
}
function containerWrite(what: string): Classification {
  return dangerous("container-write", `container write: ${shown(what)}`);
}
function prune(what: string): Classification {
  return destructive("container-prune", `container prune: ${shown(what)}`);
}

const DOCKER_READS = new Set(
  words("ps images logs inspect version info stats top port history diff events search help login-status"),
);
/** Management command → actions that only read. */
const DOCKER_OBJECT_READS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["container", new Set(words("ls list ps inspect logs top port stats diff"))],
  ["image", new Set(["ls", "list", "inspect", "history"])],
  ["volume", new Set(["ls", "list", "inspect"])],
  ["network", new Set(["ls", "list", "inspect"])],
  ["system", new Set(["df", "info", "events"])],
  ["context", new Set(["ls", "list", "show", "inspect"])],
  ["plugin", new Set(["ls", "list", "inspect"])],
  ["node", new Set(["ls", "list", "inspect", "ps"])],
  ["service", new Set(["ls", "list", "inspect", "logs", "ps"])],
  ["stack", new Set(["ls", "list", "ps", "services"])],
  ["secret", new Set(["ls", "list", "inspect"])],
  ["config", new Set(["ls", "list", "inspect"])],
  ["builder", new Set(["ls", "inspect", "du"])],
  ["buildx", new Set(["ls", "inspect", "du", "version", "imagetools"])],
  ["manifest", new Set(["inspect"])],
  ["trust", new Set(["inspect"])],
  ["scout", new Set(["cves", "quickview", "recommendations", "compare", "version", "sbom"])],
  ["pod", new Set(words("ls list ps inspect logs top stats exists"))],
  ["machine", new Set(["ls", "list", "inspect", "info"])],
  ["model", new Set(["ls", "list", "inspect"])],
]);
const PRUNABLE = new Set(words("system volume image container network builder buildx pod"));
const COMPOSE_READS = new Set(words("ps logs ls images config top version port events help convert"));

const dockerGlobalSpec = optionSpec(
  "Hcl",
  words(`
  --host --context --config --log-level --tlscacert --tlscert --tlskey --url --connection
  --identity --root --runroot --storage-driver
`),
);
const composeSpec = optionSpec(
  "fp",
  words("--file --project-name --profile --env-file --project-directory --ansi --progress --parallel"),
);
/** `docker run`/`create` options that take a value (so the image and its command can be found). */
const runSpec = optionSpec(
  "acehlmpuvwe",
  words(`
  --name --network --net --mount --entrypoint --env --env-file --label --label-file --restart
  --platform --pull --user --workdir --hostname --volume --publish --memory --cpus --gpus
  --add-host --device --dns --cap-add --cap-drop --security-opt --ulimit --log-driver --log-opt
  --tmpfs --shm-size --ipc --pid --uts --userns --cgroupns --volumes-from --link --expose
  --health-cmd --health-interval --health-retries --health-timeout --stop-signal --stop-timeout
  --runtime --cidfile --attach --cpu-shares --cpuset-cpus --memory-swap --network-alias --ip --ip6
  --mac-address --domainname --group-add --init-path --isolation --kernel-memory --storage-opt
  --sysctl --detach-keys
`),
  { stopAtPositional: true },
);
const execSpec = optionSpec("euw", ["--env", "--env-file", "--user", "--workdir", "--detach-keys"], {
  stopAtPositional: true,
});
const HOST_NAMESPACES = new Set(words("--pid --ipc --uts --userns --cgroupns --network --net"));
const ROOT_CAPABILITIES = new Set([
  "ALL",
  "SYS_ADMIN",
  "SYS_PTRACE",
  "SYS_MODULE",
  "DAC_READ_SEARCH",
  "SYS_RAWIO",
]);

/** A container given the host: privileged, host namespaces, root capabilities, `/` or the docker socket mounted. */
function hostPrivilege(
  inv: Invocation,
  options: ReturnType<typeof parseArgs>["options"],
): Classification | null {
  for (const { name, value } of options) {
    const grant =
      (name === "--privileged" && value !== "false") ||
      (HOST_NAMESPACES.has(name) && value === "host" && name !== "--network" && name !== "--net") ||
      (name === "--cap-add" && value !== null && ROOT_CAPABILITIES.has(value.toUpperCase())) ||
      ((name === "-v" || name === "--volume") && value !== null && mountsHostRoot(value.split(":")[0])) ||
      (name === "--mount" && value !== null && mountOptionsHostRoot(value)) ||
      (name === "--device" && value !== null && value.startsWith("/dev/"));
    if (grant)
      return destructive(
        "privilege-escalation",
        `privilege escalation: ${inv.name} run ${name}${value === null ? "" : ` ${shown(value, 30)}`}`,
      );
  }
  return null;
}

function mountsHostRoot(source: string): boolean {
  const path = normalizePath(source);
  if (!path.absolute) return false;
  const joined = path.segments.join("/");
  return (
    joined === "" ||
    joined === "etc" ||
    joined === "var/run/docker.sock" ||
    joined === "run/docker.sock" ||
    joined === "root" ||
    joined === "boot"
  );
}

function mountOptionsHostRoot(value: string): boolean {
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).toLowerCase();
    if ((key === "source" || key === "src") && mountsHostRoot(part.slice(eq + 1))) return true;
  }
  return false;
}

/** `run`/`create` (`runSpec`) or `exec` (`execSpec`): the image or container, then the command run in it. */
function inContainer(
  spec: OptionSpec,
  inv: Invocation,
  what: string,
  args: readonly string[],
): Classification {
  const parsed = parseArgs(args, spec);
  const privileged = hostPrivilege(inv, parsed.options);
  if (privileged) return privileged;
  const command = parsed.rest.slice(1);
  const write = containerWrite(what);
  return command.length > 0 ? worse(write, inv.argv(command)) : write;
}

function compose(inv: Invocation, prefix: string, args: readonly string[]): Classification {
  const found = firstPositional(args, composeSpec);
  if (found === null) return containerRead(prefix);
  const action = found.word;
  const what = `${prefix} ${action}`;
  if (COMPOSE_READS.has(action)) return containerRead(what);
  if (action === "exec" || action === "run")
    return inContainer(execSpec, inv, what, args.slice(found.index + 1));
  return containerWrite(what);
}

register(["docker", "podman", "nerdctl", "lima-nerdctl", "finch"], (inv) => {
  const found = firstPositional(inv.args, dockerGlobalSpec);
  if (found === null) return containerRead(`${inv.name} ${inv.args.join(" ")}`);
  const sub = found.word;
  const rest = inv.args.slice(found.index + 1);
  const what = `${inv.name} ${sub}`;
  if (DOCKER_READS.has(sub)) return containerRead(what);
  if (sub === "run" || sub === "create") return inContainer(runSpec, inv, what, rest);
  if (sub === "exec") return inContainer(execSpec, inv, what, rest);
  if (sub === "compose") return compose(inv, `${inv.name} compose`, rest);
  if (sub === "stack" && (rest[0] === "rm" || rest[0] === "remove" || rest[0] === "down")) {
    return destructive("infrastructure-destroy", `infrastructure destroy: ${what} ${rest[0]}`);
  }
  if (sub === "stack" && rest[0] === "deploy")
    return dangerous("infrastructure-deploy", `infrastructure deploy: ${what} deploy`);
  const reads = DOCKER_OBJECT_READS.get(sub);
  if (reads !== undefined) {
    const actionAt = firstPositional(rest, dockerGlobalSpec);
    const action = actionAt?.word ?? "";
    const objectWhat = `${what} ${action}`;
    if (action === "prune" && PRUNABLE.has(sub)) return prune(objectWhat);
    if (sub === "system" && action === "reset") return prune(objectWhat);
    if (reads.has(action) || action === "") return containerRead(objectWhat);
    if (sub === "container" && (action === "run" || action === "create"))
      return inContainer(runSpec, inv, objectWhat, rest.slice((actionAt?.index ?? 0) + 1));
    if (sub === "container" && action === "exec")
      return inContainer(execSpec, inv, objectWhat, rest.slice((actionAt?.index ?? 0) + 1));
    return containerWrite(objectWhat);
  }
  return containerWrite(what);
});

register(["docker-compose", "podman-compose"], (inv) => compose(inv, inv.name, inv.args));

const KUBECTL_READS = new Set(
  words(`
  get describe logs log top explain version api-resources api-versions cluster-info events diff
  completion help options kustomize wait
`),
);
const KUBECTL_DEPLOY = new Set(
  words(`
  apply create replace patch rollout scale autoscale set edit label annotate expose taint cordon
  uncordon drain certificate
`),
);
const KUBECTL_CONTAINER = new Set(words("run exec attach cp port-forward proxy debug"));
/** Resource kinds whose deletion destroys infrastructure or data (with `--all`: everything). */
const KUBECTL_DESTROY_KINDS = new Set(
  words(`
  namespace namespaces ns node nodes no pv persistentvolume persistentvolumes pvc
  persistentvolumeclaim persistentvolumeclaims crd crds customresourcedefinition
  customresourcedefinitions all statefulset statefulsets sts cluster clusters
`),
);
const kubectlSpec = optionSpec(
  "nsolfcLvk",
  words(`
  --namespace --context --kubeconfig --cluster --user --server --token --as --as-group --as-uid
  --request-timeout --cache-dir --certificate-authority --client-certificate --client-key
  --tls-server-name --selector --output --filename --container --field-selector --sort-by
  --template --label-columns --kustomize --type --image --replicas --timeout --grace-period --for
  --port --patch --cascade --chunk-size --since --tail --pod-running-timeout
`),
);

register(["kubectl", "oc", "microk8s.kubectl", "k3s"], (inv) => {
  const args = inv.name === "k3s" && inv.args[0] === "kubectl" ? inv.args.slice(1) : inv.args;
  const parsed = parseArgs(args, kubectlSpec);
  const sub = parsed.positionals[0] ?? "";
  const what = `kubectl ${sub}`;
  if (sub === "" || KUBECTL_READS.has(sub)) return containerRead(what);
  if (sub === "config") {
    const action = parsed.positionals[1] ?? "view";
    return action === "view" || action.startsWith("get-") || action === "current-context"
      ? containerRead(`kubectl config ${action}`)
      : containerWrite(`kubectl config ${action}`);
  }
  if (sub === "auth")
    return parsed.positionals[1] === "can-i" || parsed.positionals[1] === "whoami"
      ? containerRead(`kubectl auth ${parsed.positionals[1]}`)
      : containerWrite("kubectl auth");
  if (sub === "plugin")
    return parsed.positionals[1] === "list"
      ? containerRead("kubectl plugin list")
      : containerWrite("kubectl plugin");
  if (sub === "rollout" && (parsed.positionals[1] === "status" || parsed.positionals[1] === "history"))
    return containerRead(`kubectl rollout ${parsed.positionals[1]}`);
  if (sub === "delete") {
    const everything = parsed.options.some(
      (option) => option.name === "--all" || option.name === "-A" || option.name === "--all-namespaces",
    );
    const kinds = parsed.positionals
      .slice(1)
      .flatMap((resource) => resource.toLowerCase().split("/")[0].split(","));
    const kind = kinds.find((candidate) => KUBECTL_DESTROY_KINDS.has(candidate.split(".")[0]));
    if (kind !== undefined || everything) {
      return destructive(
        "infrastructure-destroy",
        `infrastructure destroy: kubectl delete ${shown(kind ?? "--all")}`,
      );
    }
    return containerWrite(`kubectl delete ${shown(parsed.positionals.slice(1).join(" "))}`);
  }
  if (KUBECTL_DEPLOY.has(sub)) return dangerous("infrastructure-deploy", `infrastructure deploy: ${what}`);
  if (KUBECTL_CONTAINER.has(sub)) {
    const dashDash = args.indexOf("--");
    const write = containerWrite(what);
    return sub === "exec" && dashDash >= 0 && dashDash + 1 < args.length
      ? worse(write, inv.argv(args.slice(dashDash + 1)))
      : write;
  }
  return dangerous("unknown-command", `unknown command: ${shown(what)}`);
});

const CRICTL_READS = new Set(
  words(`
  ps images img logs inspect inspecti inspectp stats statsp info pods version imagefsinfo config
  help
`),
);
register(["crictl", "ctr"], (inv) => {
  const sub = inv.args.find((arg) => !arg.startsWith("-")) ?? "";
  if (sub === "" || CRICTL_READS.has(sub)) return containerRead(`${inv.name} ${sub}`);
  if (inv.args.includes("--prune") || sub === "prune") return prune(`${inv.name} ${sub} --prune`);
  return containerWrite(`${inv.name} ${sub}`);
});
