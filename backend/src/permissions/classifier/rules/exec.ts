/**
 * Code execution: shells (their `-c` string and here-document input are classified recursively, a script
 * file is code execution), eval/source, interpreters, build tools and compilers.
 */
import { type Invocation, isVersionQuery, register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";

function codeExecution(what: string): Classification {
  return dangerous("code-execution", `code execution: ${shown(what)}`);
}

function versionQuery(inv: Invocation): Classification {
  return safe("system-info", `system info: ${inv.name} ${inv.args.join(" ")}`);
}

const SHELL_VALUED_LONG = new Set(["--rcfile", "--init-file"]);

/** bash/sh/zsh…: `-c STRING` is the string's verdict; a script is code execution; stdin is read as commands. */
register(words("sh bash zsh dash ksh mksh ash fish csh tcsh yash posh rbash oksh loksh"), (inv) => {
  const args = inv.args;
  let command = false;
  let fromStdin = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--" || arg === "-") {
      i++;
      break;
    }
    if (arg.startsWith("--")) {
      if (arg === "--command") command = true;
      else if (SHELL_VALUED_LONG.has(arg)) i++;
      continue;
    }
    if (arg.length < 2 || (arg[0] !== "-" && arg[0] !== "+")) break;
    const letters = arg.slice(1);
    if (letters.includes("c")) command = true;
    if (letters.includes("s")) fromStdin = true;
    if (letters.includes("o") || letters.includes("O")) i++;
  }
  const positionals = args.slice(i);
  if (command) {
    const text = positionals[0];
    return text === undefined ? codeExecution(`${inv.name} -c without a command`) : inv.line(text);
  }
  if (positionals.length > 0 && !fromStdin) {
    if (isVersionQuery(args)) return versionQuery(inv);
    return codeExecution(`${inv.name} ${positionals[0]}`);
  }
  // Commands fed on standard input: code execution, and at least as severe as those commands.
  const reading = codeExecution(`${inv.name} reading commands from standard input`);
  if (inv.stdin !== null) return worse(reading, inv.line(inv.stdin));
  return reading;
});

register(["eval"], (inv) =>
  inv.args.length === 0 ? safe("shell-builtin", "shell builtin: eval") : inv.line(inv.args.join(" ")),
);

register(["source", "."], (inv) => codeExecution(`${inv.name} ${inv.args[0] ?? ""}`));

/** alias NAME=VALUE: the name runs the value from now on (issue #24: never safe), at least as severe. */
register(["alias"], (inv) => {
  let result: Classification = dangerous("command-lookup-change", "alias: changes what a command name runs");
  for (const arg of inv.args) {
    const eq = arg.indexOf("=");
    if (eq > 0) result = worse(result, inv.line(arg.slice(eq + 1)));
  }
  return result;
});

/** trap 'COMMANDS' SIGNALS */
register(["trap"], (inv) => {
  const action = inv.args[0];
  if (action === undefined || action === "-" || action === "" || action.startsWith("-")) {
    return safe("shell-builtin", "shell builtin: trap");
  }
  return worse(safe("shell-builtin", "shell builtin: trap"), inv.line(action));
});

const INTERPRETERS = words(`
  node nodejs deno ruby perl php lua luajit rscript r julia java kotlin scala groovy swift elixir
  erl escript ghc runghc runhaskell ocaml racket guile sbcl clojure clj tsx ts-node esno vite-node
  osascript jshell irb iex pwsh powershell crystal nim zig jruby pypy php-cgi expect tclsh wish
  qjs jjs gjs dc vim vi nvim nano emacs ed ex
`);
register(INTERPRETERS, (inv) =>
  isVersionQuery(inv.args) ? versionQuery(inv) : codeExecution(`${inv.name} ${inv.args.join(" ")}`),
);

const BUILD_TOOLS = words(`
  make gmake cmake ninja ant bazel bazelisk buck buck2 sbt lein mix rebar3 meson scons just task
  gcc g++ cc c++ clang clang++ rustc javac tsc esbuild webpack vite rollup parcel turbo nx jest
  vitest mocha pytest tox nox rspec phpunit playwright cypress eslint prettier biome ruff black
  mypy pyright flake8 pylint rubocop gofmt rustfmt cargo-clippy swiftc kotlinc ld as xcodebuild
  msbuild nasm autoreconf configure hugo jekyll next nuxt astro expo react-native ng nest remix
  storybook nodemon pm2 forever supervisord gunicorn uvicorn celery flask streamlit jupyter
  ipython code xdg-open open
`);
register(BUILD_TOOLS, (inv) => {
  if (isVersionQuery(inv.args)) return versionQuery(inv);
  if (inv.name === "mix" && inv.args.some((arg) => arg === "ecto.drop" || arg === "ecto.reset")) {
    return destructive("database-drop", `database drop: mix ${shown(inv.args.join(" "))}`);
  }
  if (
    inv.name === "pm2" &&
    (inv.args[0] === "list" || inv.args[0] === "ls" || inv.args[0] === "status" || inv.args[0] === "logs")
  ) {
    return safe("system-info", `system info: pm2 ${inv.args[0]}`);
  }
  return codeExecution(`${inv.name} ${inv.args.join(" ")}`);
});

/** python: `-m pip …` is pip; `manage.py flush` drops data; anything else runs code. */
const PYTHON_MODULES_AS_TOOLS = new Set(["pip", "pip3", "twine", "poetry", "pipx", "uv"]);
const DJANGO_DESTROY = new Set(["flush", "reset_db", "sqlflush", "reset_schema"]);
register(["python", "python2", "python3", "py", "pypy3"], (inv) => {
  if (isVersionQuery(inv.args)) return versionQuery(inv);
  const args = inv.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-c") return codeExecution(`${inv.name} -c`);
    if (arg === "-m" || (arg.startsWith("-m") && arg.length > 2)) {
      const module = arg === "-m" ? args[i + 1] : arg.slice(2);
      const rest = args.slice(arg === "-m" ? i + 2 : i + 1);
      if (module !== undefined && PYTHON_MODULES_AS_TOOLS.has(module)) return inv.argv([module, ...rest]);
      return codeExecution(`${inv.name} -m ${module ?? ""}`);
    }
    if (arg.startsWith("-")) {
      if (arg === "-W" || arg === "-X" || arg === "-Q") i++;
      continue;
    }
    const script = arg.slice(arg.lastIndexOf("/") + 1);
    const subcommand = args[i + 1];
    if (script === "manage.py" && subcommand !== undefined && DJANGO_DESTROY.has(subcommand)) {
      return destructive("database-drop", `database drop: manage.py ${subcommand}`);
    }
    return codeExecution(`${inv.name} ${arg}`);
  }
  return codeExecution(`${inv.name} (interactive)`);
});

register(["django-admin", "manage.py"], (inv) => {
  const subcommand = inv.args.find((arg) => !arg.startsWith("-"));
  if (subcommand !== undefined && DJANGO_DESTROY.has(subcommand)) {
    return destructive("database-drop", `database drop: ${inv.name} ${subcommand}`);
  }
  return codeExecution(`${inv.name} ${subcommand ?? ""}`);
});

const RAILS_DESTROY = new Set(
  words("db:drop db:reset db:purge db:truncate_all db:migrate:reset db:seed:replant db:schema:load"),
);
register(["rails", "rake"], (inv) => {
  const task = inv.args.find((arg) => RAILS_DESTROY.has(arg));
  if (task !== undefined) return destructive("database-drop", `database drop: ${inv.name} ${task}`);
  if (isVersionQuery(inv.args)) return versionQuery(inv);
  return codeExecution(`${inv.name} ${inv.args.join(" ")}`);
});
