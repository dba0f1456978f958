/**
 * Infrastructure: deploys (terraform apply, kubectl apply, helm install/upgrade, pulumi up, serverless
 * deploy, …) are dangerous; destroy and teardown (terraform destroy, pulumi destroy, helm uninstall,
 * `aws … delete-*`, `gcloud … delete`, …) are destructive.
 */
import { firstPositional, optionSpec, parseArgs } from "../options";
import { isVersionQuery, register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";

function deploy(what: string): Classification {
  return dangerous("infrastructure-deploy", `infrastructure deploy: ${shown(what)}`);
}
function destroy(what: string): Classification {
  return destructive("infrastructure-destroy", `infrastructure destroy: ${shown(what)}`);
}
function infraRead(what: string): Classification {
  return safe("infrastructure-read", `infrastructure read: ${shown(what)}`);
}
function infraCommand(what: string): Classification {
  return dangerous("infrastructure-command", `infrastructure command: ${shown(what)}`);
}

const TERRAFORM_READ = new Set(words("version -version --version -help --help help fmt output"));
const TERRAFORM_DEPLOY = new Set(
  words("apply import taint untaint refresh force-unlock login logout state workspace"),
);
const TERRAFORM_STATE_READ = new Set(["list", "show", "pull"]);
register(["terraform", "tofu", "opentofu", "terragrunt", "terraform-local", "tflocal"], (inv) => {
  const positionals = inv.args.filter((arg) => !arg.startsWith("-"));
  const flags = inv.args.filter((arg) => arg.startsWith("-"));
  // terragrunt run-all destroy / run --all destroy
  const sub =
    positionals[0] === "run-all" || positionals[0] === "run"
      ? (positionals[1] ?? "")
      : (positionals[0] ?? "");
  const what = `${inv.name} ${sub}`.trim();
  if (sub === "destroy" || flags.includes("-destroy") || flags.includes("--destroy")) {
    return sub === "plan"
      ? infraCommand(`${what} -destroy`)
      : destroy(sub === "destroy" ? what : `${what} -destroy`);
  }
  if (sub === "" && isVersionQuery(inv.args)) return infraRead(`${inv.name} -version`);
  if (TERRAFORM_READ.has(sub)) return infraRead(what);
  if ((sub === "state" || sub === "workspace") && TERRAFORM_STATE_READ.has(positionals[1] ?? ""))
    return infraRead(`${what} ${positionals[1]}`);
  if (sub === "workspace" && (positionals[1] === "show" || positionals[1] === "list"))
    return infraRead(`${what} ${positionals[1]}`);
  if (sub === "init" || sub === "get" || sub === "providers")
    return dangerous("package-install", `package install: ${what}`);
  if (TERRAFORM_DEPLOY.has(sub))
    return deploy(sub === "state" || sub === "workspace" ? `${what} ${positionals[1] ?? ""}` : what);
  return infraCommand(what);
});

const PULUMI_READ = new Set(["version", "whoami", "about", "help", "--version", "logs"]);
register(["pulumi"], (inv) => {
  const positionals = inv.args.filter((arg) => !arg.startsWith("-"));
  const sub = positionals[0] ?? "";
  const what = `pulumi ${sub}`;
  if (
    sub === "destroy" ||
    sub === "down" ||
    (sub === "stack" && (positionals[1] === "rm" || positionals[1] === "remove"))
  ) {
    return destroy(sub === "stack" ? "pulumi stack rm" : what);
  }
  if (
    sub === "up" ||
    sub === "update" ||
    sub === "u" ||
    sub === "refresh" ||
    sub === "import" ||
    sub === "cancel"
  )
    return deploy(what);
  if (
    sub === "" ||
    PULUMI_READ.has(sub) ||
    (sub === "stack" &&
      (positionals[1] === "ls" ||
        positionals[1] === "output" ||
        positionals[1] === "history" ||
        positionals[1] === undefined))
  ) {
    return infraRead(`${what} ${positionals[1] ?? ""}`);
  }
  return infraCommand(what);
});

/** Groups whose entries are settings, not infrastructure (`vercel env rm KEY`). */
const SETTINGS_GROUPS = new Set(
  words("env secrets secret config domains domain alias certs dns tokens token keys members teams"),
);
const platformSpec = optionSpec(
  "a",
  words("--stage --region --profile --app --project --scope --token --config"),
);
/** cdk, serverless, sst, amplify, sam, copilot: deploy vs remove/destroy. */
const TEARDOWN = new Set(["destroy", "remove", "rm", "delete", "teardown", "down"]);
const DEPLOYS = new Set(words("deploy up publish push release promote rollback"));
register(
  words(`
  cdk cdktf serverless sls sst amplify sam copilot cdk8s railway render wrangler firebase supabase
  ntl netlify vercel fly flyctl heroku eb dokku kamal cap
`),
  (inv) => {
    const found = firstPositional(inv.args, platformSpec);
    if (found === null) {
      if (isVersionQuery(inv.args)) return infraRead(`${inv.name} --version`);
      // `vercel` alone deploys the working directory.
      return inv.name === "vercel" ? deploy("vercel") : infraCommand(inv.name);
    }
    const sub = found.word.toLowerCase();
    const next = inv.args.slice(found.index + 1).find((arg) => !arg.startsWith("-")) ?? "";
    const what = `${inv.name} ${sub}`;
    const [group, action = next] = sub.includes(":") ? sub.split(":") : [sub, next];
    if (TEARDOWN.has(sub) || (TEARDOWN.has(action) && !SETTINGS_GROUPS.has(group)) || sub === "pg:reset") {
      return destroy(sub.includes(":") || next === "" ? what : `${what} ${next}`);
    }
    if (sub === "database" && action === "reset")
      return destructive("database-drop", `database drop: ${what} reset`);
    if (DEPLOYS.has(sub) || DEPLOYS.has(action) || sub === "launch" || sub === "--prod") return deploy(what);
    if (sub === "ssh" || sub === "console" || sub === "run" || sub === "exec" || action === "ssh")
      return dangerous("remote-execution", `remote execution: ${what}`);
    if (
      sub === "logs" ||
      sub === "status" ||
      sub === "ls" ||
      sub === "list" ||
      sub === "info" ||
      sub === "whoami" ||
      sub === "inspect" ||
      sub === "synth" ||
      sub === "diff" ||
      sub === "version" ||
      sub === "doctor"
    ) {
      return sub === "synth" || sub === "diff" ? infraCommand(what) : infraRead(what);
    }
    return infraCommand(what);
  },
);

/** Cloud CLIs: read operations are a network read; delete/terminate destroy; the rest changes infrastructure. */
const CLOUD_READ_VERB =
  /^(?:describe|list|get|head|lookup|search|show|ls|batch-get|validate|estimate|preview|check|query|scan|info|whoami|version|wait)(?:-|$)/;
const CLOUD_DESTROY_VERB = /^(?:delete|terminate|remove|destroy|deregister|purge|rb|drop|wipe|erase)(?:-|$)/;
const awsSpec = optionSpec(
  "",
  words(`
  --region --profile --output --endpoint-url --query --color --ca-bundle --cli-read-timeout
  --cli-connect-timeout --cli-binary-format
`),
);
register(["aws", "awslocal"], (inv) => {
  const positionals = parseArgs(inv.args, awsSpec).positionals;
  const [service = "", operation = ""] = positionals;
  const what = `aws ${service} ${operation}`.trim();
  if (service === "" || isVersionQuery(inv.args)) return infraRead("aws --version");
  if (service === "s3") {
    if (operation === "ls") return safe("network-read", `network read: ${what}`);
    if (
      operation === "rb" ||
      (operation === "rm" && (inv.args.includes("--recursive") || inv.args.includes("-r")))
    )
      return destroy(`${what}${operation === "rm" ? " --recursive" : ""}`);
    if (operation === "sync" && inv.args.includes("--delete")) return destroy("aws s3 sync --delete");
    return dangerous("network-write", `network write: ${what}`);
  }
  if (service === "configure")
    return operation === "list" || operation === "get" ? infraRead(what) : infraCommand(what);
  if (service === "ssm" && (operation === "start-session" || operation === "send-command"))
    return dangerous("remote-execution", `remote execution: ${what}`);
  if (CLOUD_DESTROY_VERB.test(operation)) return destroy(what);
  if (CLOUD_READ_VERB.test(operation) || operation === "get-caller-identity")
    return safe("network-read", `network read: ${what}`);
  return deploy(what);
});

register(words("gcloud gsutil az doctl linode-cli hcloud scw ibmcloud oci exo upcloud vultr-cli"), (inv) => {
  const positionals = inv.args.filter((arg) => !arg.startsWith("-"));
  const what = `${inv.name} ${positionals.slice(0, 4).join(" ")}`.trim();
  if (positionals.length === 0) return infraRead(inv.name);
  if (inv.name === "gsutil") {
    const verb = positionals[0];
    if (
      verb === "rb" ||
      (verb === "rm" && inv.args.some((arg) => arg === "-r" || arg === "-R" || arg === "-a"))
    )
      return destroy(what);
    if (verb === "ls" || verb === "cat" || verb === "du" || verb === "stat" || verb === "version")
      return safe("network-read", `network read: ${what}`);
    return dangerous("network-write", `network write: ${what}`);
  }
  if (positionals.some((word) => CLOUD_DESTROY_VERB.test(word))) return destroy(what);
  if (positionals.includes("ssh") || positionals.includes("scp"))
    return dangerous("remote-execution", `remote execution: ${what}`);
  if (positionals.includes("deploy") || positionals.includes("create") || positionals.includes("apply"))
    return deploy(what);
  const last = positionals[positionals.length - 1];
  if (
    positionals.some((word) => CLOUD_READ_VERB.test(word)) &&
    !positionals.includes("set") &&
    last !== undefined
  ) {
    return safe("network-read", `network read: ${what}`);
  }
  return infraCommand(what);
});

register(
  words("eksctl kops k3d kind minikube colima vagrant multipass lima limactl podman-machine"),
  (inv) => {
    const positionals = inv.args.filter((arg) => !arg.startsWith("-"));
    const sub = positionals[0] ?? "";
    const what = `${inv.name} ${positionals.slice(0, 2).join(" ")}`.trim();
    const local = inv.name !== "eksctl" && inv.name !== "kops";
    if (sub === "delete" || sub === "destroy") return local ? infraCommand(what) : destroy(what);
    if (
      sub === "" ||
      sub === "get" ||
      sub === "status" ||
      sub === "list" ||
      sub === "ls" ||
      sub === "version" ||
      sub === "global-status" ||
      sub === "info"
    )
      return infraRead(what);
    if (sub === "ssh" || sub === "shell" || sub === "exec")
      return dangerous("remote-execution", `remote execution: ${what}`);
    return local ? infraCommand(what) : deploy(what);
  },
);

/** helm: install/upgrade/rollback deploy; uninstall destroys the release. */
const HELM_READ = new Set(
  words(`
  list ls status history hist get show inspect search template lint version env verify help
  completion
`),
);
const HELM_DEPLOY = new Set(["install", "upgrade", "rollback", "test"]);
const helmSpec = optionSpec(
  "n",
  words(`
  --namespace --kube-context --kubeconfig --repository-config --registry-config --repository-cache
  --burst-limit --kube-apiserver --kube-token --kube-as-user
`),
);
register(["helm", "helmfile"], (inv) => {
  const positionals = parseArgs(inv.args, helmSpec).positionals;
  const sub = positionals[0] ?? "";
  const what = `${inv.name} ${sub}`;
  if (sub === "uninstall" || sub === "delete" || sub === "del" || sub === "un" || sub === "destroy")
    return destroy(what);
  if (HELM_DEPLOY.has(sub) || sub === "apply" || sub === "sync") return deploy(what);
  if (sub === "" || HELM_READ.has(sub) || sub === "diff") return infraRead(what);
  if (
    (sub === "repo" || sub === "dependency" || sub === "dep" || sub === "plugin") &&
    (positionals[1] === "list" || positionals[1] === "ls")
  )
    return infraRead(`${what} list`);
  if (sub === "push") return destructive("package-publication", `package publication: ${what}`);
  return dangerous("package-install", `package install: ${what} ${positionals[1] ?? ""}`);
});

/** ansible: runs modules on hosts; `-m shell -a CMD` is classified as a command line too. */
register(
  words(`
  ansible ansible-playbook ansible-pull salt salt-ssh pssh parallel-ssh pdsh fab knife puppet
  chef-client
`),
  (inv) => {
    const own =
      inv.name === "ansible-playbook"
        ? deploy("ansible-playbook")
        : dangerous("remote-execution", `remote execution: ${inv.name}`);
    const command = adHocCommand(inv.args);
    return command === null ? own : worse(own, inv.line(command));
  },
);

const SHELL_MODULES = new Set([
  "shell",
  "command",
  "raw",
  "ansible.builtin.shell",
  "ansible.builtin.command",
  "ansible.builtin.raw",
]);
function adHocCommand(args: readonly string[]): string | null {
  const moduleAt = args.findIndex((arg) => arg === "-m" || arg === "--module-name");
  const module = moduleAt >= 0 ? args[moduleAt + 1] : "command";
  const argsAt = args.findIndex((arg) => arg === "-a" || arg === "--args");
  const command = argsAt >= 0 ? args[argsAt + 1] : undefined;
  return command !== undefined && module !== undefined && SHELL_MODULES.has(module) ? command : null;
}
