/**
 * System and other-language package managers (conda, apt, dpkg/rpm, dnf, pacman, apk, brew, gem, bundler,
 * cargo, go, composer, dotnet) and Maven/Gradle, whose `deploy`/`publish` tasks upload artifacts.
 */
import { optionSpec } from "../options";
import { isVersionQuery, register, words } from "../registry";
import { dangerous, destructive, safe, shown } from "../types";
import { managerRule, packageVerdict } from "./package-manager";

register(
  ["conda", "mamba", "micromamba"],
  managerRule({
    info: ["list", "info", "search", "help", "doctor"],
    install: words(
      "install create remove uninstall update upgrade env clean config init activate deactivate",
    ),
    run: ["run", "build"],
    bare: "info",
    other: "unknown",
    special: (_inv, sub, rest) => {
      if (sub === "env" && (rest[0] === "list" || rest[0] === "export"))
        return packageVerdict("info", `${sub} ${rest[0]}`);
      if (sub === "config" && (rest.includes("--show") || rest.includes("--get")))
        return packageVerdict("info", "conda config --show");
      return null;
    },
  }),
);

const aptRule = managerRule({
  spec: optionSpec("ocCt", ["--option", "--config-file", "--target-release"]),
  info: words(`
  list show search policy depends rdepends madison showpkg showsrc changelog stats dump dumpavail
  pkgnames dotty xvcg unmet help showmanual showauto showhold moo
`),
  install: words(`
  install remove purge upgrade full-upgrade dist-upgrade autoremove autopurge update reinstall
  build-dep source clean autoclean satisfy download markauto auto manual hold unhold edit-sources
  gencaches
`),
  bare: "info",
  other: "unknown",
});
register(["apt", "apt-get", "aptitude", "apt-cache", "apt-mark", "apt-file"], (inv) =>
  inv.name === "apt-cache" || (inv.name === "apt-file" && inv.args[0] !== "update")
    ? packageVerdict("info", `${inv.name} ${inv.args[0] ?? ""}`)
    : aptRule(inv),
);

const DPKG_INFO = new Set(
  words(`
  -l --list -L --listfiles -s --status -S --search -p --print-avail --get-selections -c --contents
  -I --info --print-architecture --print-foreign-architectures --version --help -W --show
  --compare-versions --audit -C --verify -V
`),
);
register(["dpkg", "dpkg-query", "rpm"], (inv) => {
  if (inv.name === "dpkg-query") return packageVerdict("info", "dpkg-query");
  const action = inv.args.find((arg) => arg.startsWith("-"));
  if (action === undefined) return packageVerdict("info", inv.name);
  if (inv.name === "rpm") {
    return action.startsWith("-q") || action === "--query" || action === "--verify" || action.startsWith("-V")
      ? packageVerdict("info", `rpm ${action}`)
      : packageVerdict("install", `rpm ${action}`);
  }
  return DPKG_INFO.has(action)
    ? packageVerdict("info", `dpkg ${action}`)
    : packageVerdict("install", `dpkg ${action}`);
});

register(
  ["dnf", "yum", "microdnf", "zypper", "tdnf"],
  managerRule({
    spec: optionSpec(
      "cdeRx",
      words("--config --releasever --repo --enablerepo --disablerepo --exclude --installroot"),
    ),
    info: words(`
  list info search se provides wp what-provides repolist lr repos deplist check-update repoquery
  if help history check packages pa patches search-packages
`),
    install: words(`
  install in remove rm erase upgrade up update downgrade reinstall autoremove groupinstall
  groupremove group module clean makecache refresh ref dup dist-upgrade patch swap distro-sync
  addrepo ar removerepo rr config-manager localinstall
`),
    bare: "info",
    other: "unknown",
  }),
);

const PACMAN_SYNC_READ = /[sigl]/;
const PACMAN_SYNC_WRITE = /[yu]/;
register(["pacman", "yay", "paru"], (inv) => {
  const action = inv.args.find((arg) => arg.startsWith("-")) ?? "";
  const letters = action.startsWith("--") ? "" : action.slice(1);
  const query =
    action === "--query" || letters.startsWith("Q") || letters.startsWith("F") || action === "--files";
  const syncRead =
    letters.startsWith("S") &&
    PACMAN_SYNC_READ.test(letters.slice(1)) &&
    !PACMAN_SYNC_WRITE.test(letters.slice(1));
  if (query || syncRead || isVersionQuery(inv.args)) return packageVerdict("info", `${inv.name} ${action}`);
  if (action === "") return packageVerdict(inv.name === "pacman" ? "info" : "install", inv.name);
  return packageVerdict("install", `${inv.name} ${action}`);
});

register(
  ["apk"],
  managerRule({
    info: words("info search list policy dot stats audit verify version manifest"),
    install: words("add del upgrade update fix cache fetch index"),
    bare: "info",
    other: "unknown",
  }),
);

register(
  ["brew"],
  managerRule({
    info: words(`
  list ls info abv search outdated deps uses leaves config doctor dr desc home homepage commands
  tap-info --prefix --cellar --cache --repository --env shellenv options missing log cat formulae
  casks help --version
`),
    install: words(`
  install reinstall uninstall remove rm upgrade update tap untap cleanup link ln unlink pin unpin
  bundle autoremove services postinstall migrate edit create extract
`),
    bare: "info",
    other: "unknown",
  }),
);

register(
  words(`
  snap flatpak port choco winget scoop nix-env asdf mise rtx nvm pyenv rbenv sdk volta fnm rustup
  gvm proto nix
`),
  managerRule({
    info: words(`
  list ls info find search version versions remote-ls remotes installed outdated deps contents
  current which where show status doctor help -q --query list-remote ls-remote latest
`),
    install: words(`
  install remove uninstall refresh update upgrade selfupdate sync add use global local shell set
  default alias unalias plugin reshim -i -e -u --install --uninstall toolchain target component
  self override
`),
    run: ["run", "exec", "x", "develop", "build"],
    bare: "info",
    other: "unknown",
  }),
);

register(
  ["gem"],
  managerRule({
    info: words(`
  list search info query specification contents dependency environment env which outdated help
  check lock stale
`),
    install: words("install i uninstall update cleanup pristine sources owner signin signout rdoc"),
    run: ["build", "exec", "open"],
    publish: ["push", "yank"],
    bare: "info",
    other: "unknown",
  }),
);

register(
  ["bundle", "bundler"],
  managerRule({
    info: words("list show info outdated check platform doctor version help licenses viz"),
    install: words(
      "install update add remove lock clean cache package binstubs pristine config init inject plugin",
    ),
    run: ["console", "open", "gem"],
    runsPackage: ["exec"],
    bare: "install",
    other: "unknown",
  }),
);

register(
  ["cargo"],
  managerRule({
    info: words(`
  search tree metadata version info pkgid read-manifest locate-project help verify-project --list
  report
`),
    install: words(
      "install uninstall add remove rm update fetch vendor generate-lockfile login logout owner",
    ),
    run: words(`
  build b run r test t bench check c clippy doc d fix fmt rustc rustdoc init new package clean
  miri watch nextest expand make tauri leptos shuttle lambda component
`),
    publish: ["publish", "yank"],
    bare: "info",
    other: "run",
  }),
);

register(
  ["go"],
  managerRule({
    info: ["version", "env", "list", "doc", "help", "vet-list"],
    install: ["get", "install", "work"],
    run: words("run test build generate vet tool fmt fix clean bug telemetry"),
    bare: "info",
    other: "unknown",
    special: (_inv, sub, rest) => {
      if (sub === "mod") {
        const action = rest[0] ?? "";
        return action === "graph" || action === "why" || action === "verify" || action === "help"
          ? packageVerdict("info", `go mod ${action}`)
          : packageVerdict("install", `go mod ${action}`);
      }
      if (sub === "env" && rest.some((word) => word === "-w" || word === "-u"))
        return packageVerdict("install", "go env -w");
      return null;
    },
  }),
);

register(
  ["composer"],
  managerRule({
    info: words(`
  show info outdated licenses depends why prohibits why-not validate diagnose search fund audit
  status check-platform-reqs suggests browse home help list
`),
    install: words(`
  install i require update u upgrade remove rm create-project dump-autoload dumpautoload reinstall
  bump global config clear-cache self-update init
`),
    run: ["run-script", "run", "exec", "archive"],
    bare: "info",
    other: "run",
  }),
);

register(
  ["dotnet"],
  managerRule({
    info: words("--version --info --list-sdks --list-runtimes list help sdk"),
    install: ["add", "remove", "restore", "new", "tool", "workload"],
    run: words(`
  run test build publish pack watch exec clean format msbuild ef vstest store dev-certs
  user-secrets
`),
    bare: "info",
    other: "run",
    special: (_inv, sub, rest) => {
      if (sub === "nuget" && rest[0] === "push") return packageVerdict("publish", "dotnet nuget push");
      if (sub === "nuget" && rest[0] === "delete") return packageVerdict("publish", "dotnet nuget delete");
      if (sub === "ef" && rest[0] === "database" && rest[1] === "drop")
        return destructive("database-drop", "database drop: dotnet ef database drop");
      return null;
    },
  }),
);

/** Maven and Gradle run builds; `deploy` and `publish` tasks upload artifacts. */
register(["mvn", "mvnw", "gradle", "gradlew"], (inv) => {
  if (isVersionQuery(inv.args)) return safe("system-info", `system info: ${inv.name} --version`);
  for (const arg of inv.args) {
    if (arg === "deploy" || arg === "release:perform" || arg === "deploy:deploy-file")
      return packageVerdict("publish", `${inv.name} ${arg}`);
    const task = arg.slice(arg.lastIndexOf(":") + 1);
    if (task.startsWith("publish") && !task.includes("MavenLocal") && !task.includes("ToMavenLocal")) {
      return packageVerdict("publish", `${inv.name} ${arg}`);
    }
  }
  return dangerous("code-execution", `code execution: ${inv.name} ${shown(inv.args.join(" "))}`);
});
