/** JavaScript and Python package managers (npm, npx, yarn, pnpm, bun, pip, uv, poetry, pipx, twine, …). */
import { optionSpec, parseArgs } from "../options";
import { isVersionQuery, register, words } from "../registry";
import { dangerous, worse } from "../types";
import { managerRule, packageVerdict, runPackage } from "./package-manager";

const npxSpec = optionSpec("pc", ["--package", "--call", "--node-options", "--shell"], {
  stopAtPositional: true,
});
register(["npx", "pnpx", "bunx", "uvx"], (inv) => {
  const parsed = parseArgs(inv.args, npxSpec);
  for (const option of parsed.options) {
    if ((option.name === "-c" || option.name === "--call") && option.value !== null) {
      return worse(packageVerdict("run", `${inv.name} -c`), inv.line(option.value));
    }
  }
  if (parsed.rest.length === 0 && isVersionQuery(inv.args))
    return packageVerdict("info", `${inv.name} --version`);
  return runPackage(inv, inv.name, parsed.rest);
});

const NPM_INFO = words(`
  ls list la ll view v info show outdated search s se find help whoami ping root prefix bin
  explain why fund docs home repo bugs query sbom doctor help-search completion get
`);
const NPM_INSTALL = words(`
  install i in ins inst insta instal isnt isnta isntal add ci clean-install install-clean ic
  update up upgrade udpate uninstall un unlink remove rm r link ln dedupe ddp prune rebuild rb
  install-test it install-ci-test cit shrinkwrap set cache login logout adduser token owner access
  team org hook star unstar deprecate undeprecate dist-tag profile pkg init create innit
`);
const NPM_RUN = words("run run-script rum urn test t tst start stop restart pack explore edit");
const npmSpec = optionSpec(
  "wC",
  words("--prefix --workspace --loglevel --registry --cache --userconfig --globalconfig"),
);

register(
  ["npm"],
  managerRule({
    spec: npmSpec,
    info: NPM_INFO,
    install: NPM_INSTALL,
    run: NPM_RUN,
    publish: ["publish", "unpublish"],
    runsPackage: ["exec", "x"],
    bare: "info",
    other: "unknown",
    special: (_inv, sub, rest) => {
      if (sub === "audit")
        return rest.includes("fix")
          ? packageVerdict("install", "npm audit fix")
          : packageVerdict("info", "npm audit");
      if (sub === "config" || sub === "c") {
        const action = rest.find((word) => !word.startsWith("-"));
        return action === "get" || action === "list" || action === "ls" || action === undefined
          ? packageVerdict("info", `npm config ${action ?? ""}`)
          : packageVerdict("install", `npm config ${action}`);
      }
      if (sub === "version" && rest.some((word) => !word.startsWith("-"))) {
        return dangerous("vcs-write", "version-control write: npm version (commit and tag)");
      }
      return null;
    },
  }),
);

const YARN_INFO = words("list info why outdated licenses versions bin owner config npm help explain");
const YARN_INSTALL = words(`
  add install remove upgrade up upgrade-interactive import link unlink dedupe autoclean global
  cache set plugin patch patch-commit login logout
`);
register(
  ["yarn", "yarnpkg"],
  managerRule({
    spec: optionSpec("", ["--cwd", "--modules-folder", "--cache-folder", "--mutex", "--network-timeout"]),
    info: YARN_INFO,
    install: YARN_INSTALL,
    run: words("run test start node create init pack workspace workspaces"),
    publish: ["publish"],
    runsPackage: ["dlx", "exec"],
    bare: "install",
    other: "run",
    special: (_inv, sub, rest) => {
      if (sub === "npm" && rest[0] === "publish") return packageVerdict("publish", "yarn npm publish");
      if (sub === "config" && rest.some((word) => word === "set" || word === "unset" || word === "delete")) {
        return packageVerdict("install", "yarn config set");
      }
      if (sub === "cache" && (rest[0] === "list" || rest[0] === "dir"))
        return packageVerdict("info", `yarn cache ${rest[0]}`);
      return null;
    },
  }),
);

register(
  ["pnpm"],
  managerRule({
    spec: optionSpec("CF", ["--dir", "--filter", "--loglevel", "--reporter", "--prefix"]),
    info: words(
      "ls list ll la outdated why view info audit licenses root bin help doctor env store config search",
    ),
    install: words(`
  install i add remove rm uninstall un update up upgrade link ln unlink prune rebuild rb import
  fetch dedupe patch patch-commit install-test it setup init create
`),
    run: words("run run-script test t start stop restart pack deploy recursive -r multi m"),
    publish: ["publish"],
    runsPackage: ["dlx", "exec", "x"],
    bare: "info",
    other: "run",
  }),
);

register(
  ["bun"],
  managerRule({
    info: ["pm", "outdated", "info", "why", "audit"],
    install: words("install i add a remove rm update link unlink upgrade patch init create c"),
    run: ["run", "test", "build", "repl", "exec", "shell"],
    publish: ["publish"],
    runsPackage: ["x"],
    bare: "run",
    other: "run",
    special: (_inv, sub, rest) => {
      if (
        sub === "pm" &&
        rest[0] !== undefined &&
        rest[0] !== "ls" &&
        rest[0] !== "hash" &&
        rest[0] !== "bin" &&
        rest[0] !== "cache" &&
        rest[0] !== "whoami"
      ) {
        return packageVerdict("install", `bun pm ${rest[0]}`);
      }
      return null;
    },
  }),
);

const PIP_INFO = words("list show freeze check search help config debug inspect index cache hash completion");
const pipRule = managerRule({
  spec: optionSpec(
    "",
    words(`
  --python --log --proxy --retries --timeout --exists-action --trusted-host --cert --client-cert
  --cache-dir
`),
  ),
  info: PIP_INFO,
  install: ["install", "uninstall", "download", "wheel", "sync", "compile"],
  bare: "info",
  other: "unknown",
  special: (_inv, sub, rest) => {
    if (sub === "config" && rest.some((word) => word === "set" || word === "unset" || word === "edit"))
      return packageVerdict("install", "pip config set");
    if (sub === "cache" && (rest[0] === "purge" || rest[0] === "remove"))
      return packageVerdict("install", `pip cache ${rest[0]}`);
    return null;
  },
});
register(["pip", "pip3"], pipRule);

register(
  ["uv"],
  managerRule({
    spec: optionSpec("p", [
      "--python",
      "--directory",
      "--project",
      "--cache-dir",
      "--config-file",
      "--color",
    ]),
    info: ["tree", "version", "help", "cache", "self"],
    install: words("add remove sync lock venv init export"),
    run: ["build"],
    publish: ["publish"],
    runsPackage: ["run"],
    bare: "info",
    other: "unknown",
    special: (inv, sub, rest) => {
      if (sub === "pip") return inv.argv(["pip", ...rest]);
      if (sub === "tool" || sub === "python") {
        const action = rest[0] ?? "";
        if (action === "run") return runPackage(inv, `uv ${sub} run`, rest.slice(1));
        return action === "list" || action === "dir" || action === "find"
          ? packageVerdict("info", `uv ${sub} ${action}`)
          : packageVerdict("install", `uv ${sub} ${action}`);
      }
      return null;
    },
  }),
);

register(
  ["poetry"],
  managerRule({
    spec: optionSpec("C", ["--directory", "--project"]),
    info: words("show check search about help list env config"),
    install: words("add install update remove lock sync init new self source cache"),
    run: ["build", "shell", "version"],
    publish: ["publish"],
    runsPackage: ["run"],
    bare: "info",
    other: "unknown",
    special: (_inv, sub, rest) => {
      if (sub === "env" && rest[0] !== undefined && rest[0] !== "info" && rest[0] !== "list")
        return packageVerdict("install", `poetry env ${rest[0]}`);
      if (sub === "config" && rest.some((word) => !word.startsWith("-")) && !rest.includes("--list"))
        return packageVerdict("install", "poetry config");
      if (sub === "version" && rest.length === 0) return packageVerdict("info", "poetry version");
      return null;
    },
  }),
);

register(
  ["pipx"],
  managerRule({
    info: ["list", "environment", "completions"],
    install: words(`
  install inject upgrade upgrade-all uninstall uninstall-all reinstall reinstall-all ensurepath
  pin unpin
`),
    runsPackage: ["run"],
    bare: "info",
    other: "unknown",
  }),
);

for (const name of ["hatch", "flit", "pdm", "rye", "twine"]) {
  register(
    [name],
    managerRule({
      info: words("show list check info search version status config"),
      install: words("add remove install sync lock update init new env fetch pin toolchain"),
      run: ["run", "build", "shell", "test", "fmt", "exec"],
      publish: ["publish", "upload", "register"],
      bare: "info",
      other: name === "twine" ? "unknown" : "run",
    }),
  );
}
