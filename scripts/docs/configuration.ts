/**
 * docs/configuration.md, made from the code: each service's variables are the keys of its zod env schema,
 * each default is what that schema gives for an unset variable, and each meaning is the comment above the
 * variable in .env.example. `node --import tsx scripts/docs/configuration.ts` rewrites the file;
 * configuration.test.ts fails while it is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { envSchema as backendEnv } from "../../backend/src/config";
import { envSchema as summarizerEnv } from "../../summarizer/src/config";
import { envSchema as webEnv } from "../../web/lib/infra/config";
import { envSchema as wrapperEnv } from "../../wrapper/src/config";
import { envSchema as launcherEnv } from "../launcher/config";
import { LOCAL_SECRETS } from "../launcher/secrets";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const DOC_PATH = "docs/configuration.md";

interface Service {
  title: string;
  /** Where the schema is, and what reads it. */
  where: string;
  schema: z.ZodObject;
  /** Variables read by pattern, which a schema cannot list. */
  patterns?: string[];
  /** Where this service gives a shared name its own meaning. */
  meanings?: Record<string, string>;
  /** Defaults the service computes after parsing (the schema leaves them unset). */
  computed?: Record<string, string>;
}

const SERVICES: Service[] = [
  {
    title: "`npm start` (the launcher)",
    where:
      "`scripts/launcher/config.ts`. It passes the whole environment on to the services it starts, adding " +
      "`DATABASE_URL`, `DATA_DIR`, `BACKEND_URL`, `SUMMARIZER_URL`, `PUBLIC_URL`, `BACKEND_PUBLIC_URL`, " +
      "`LOCAL_AGENTS_DIR`, `NODE_ENV=production` and the local secrets.",
    schema: launcherEnv,
    computed: {
      DATA_DIR: "`.data`",
      BACKEND_URL: "`http://127.0.0.1:$BACKEND_PORT`",
      SUMMARIZER_URL: "`http://127.0.0.1:$SUMMARIZER_PORT`",
      PUBLIC_URL: "`http://localhost:$WEB_PORT`",
    },
  },
  {
    title: "backend",
    where:
      "`backend/src/config.ts` (with `backend/src/runtime-install/config.ts` and " +
      "`backend/src/scheduled-tasks/config.ts`); `npm run runtime:install` reads the runtime installer's part.",
    schema: backendEnv,
  },
  {
    title: "web",
    where:
      "`web/lib/infra/config/index.ts`, which spreads in the areas' own `config.ts` (gateway, files, " +
      "scheduled-tasks, partners, skills, initdeep, chain, radio, wallets); `web/server.ts` parses it once.",
    schema: webEnv,
    patterns: [
      "`FILE_QUOTA_MB_<PLAN>`: the storage quota in MiB of users of that plan (the plan upper-cased, other " +
        "characters as `_`: `FILE_QUOTA_MB_TEAM=100`); plans without one have `FILE_QUOTA_MB`.",
      "`TASKS_PER_USER_<PLAN>` and `TASK_MIN_INTERVAL_SECONDS_<PLAN>`: the scheduled-task limits of that plan " +
        "(`TASKS_PER_USER_PRO=500`); plans without one have `TASKS_PER_USER` and `TASK_MIN_INTERVAL_SECONDS`.",
    ],
  },
  { title: "summarizer", where: "`summarizer/src/config.ts`.", schema: summarizerEnv },
  {
    title: "wrapper (one per agent)",
    where:
      "`wrapper/src/config.ts`. The hosting drivers set these for each agent; with `RUNTIME_KIND=openclaw` " +
      "the wrapper refuses to start without `PLATFORM_BACKEND_URL`, `OPENCLAW_GATEWAY_TOKEN` and the plugin.",
    schema: wrapperEnv,
    meanings: {
      AI_PROVIDER:
        "Wrapper (set by provisioning): the agent's AI provider name as the platform knows it (shown in its status).",
      HOST: "Address the wrapper binds to.",
    },
  },
];

/** The operating system's own variables the backend passes on to local agents. */
const SYSTEM = new Set(["PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "NODE_EXTRA_CA_CERTS"]);

/** Variables of .env.example that no service schema parses, and what reads them. */
const OTHERS: Record<string, string> = {
  TEST_DATABASE_URL: "the test setup (`common/testing/global-setup.ts`)",
  POSTGRES_PASSWORD: "`docker-compose.yml`",
  EMBEDDED_PG_PASSWORD: "`npm start` (`scripts/launcher/secrets.ts`), for the embedded cluster",
  OPENCLAW_GATEWAY_TOKEN_FILE:
    "the wrapper before its schema (`wrapper/src/config.ts`, `SECRET_FILE_VARIABLES`)",
  WRAPPER_ADMIN_PASSWORD_FILE:
    "the wrapper before its schema (`wrapper/src/config.ts`, `SECRET_FILE_VARIABLES`)",
};

/** Each `NAME=value` line of .env.example: its value and the comment above it, joined into one line. */
export function documentedVariables(envExample: string): Map<string, { value: string; meaning: string }> {
  const variables = new Map<string, { value: string; meaning: string }>();
  let comment: string[] = [];
  for (const line of envExample.split("\n")) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) {
      variables.set(match[1], { value: match[2].trim(), meaning: comment.join(" ") });
      comment = [];
    } else if (line.startsWith("# ---") || line.trim() === "") {
      comment = [];
    } else if (line.startsWith("# ")) {
      const text = line.slice(2).trim();
      // A line wholly in parentheses is a note about other variables, not the next one's meaning.
      if (!/^\(.*\)$/.test(text)) comment.push(text);
    }
  }
  return variables;
}

/**
 * What the schema gives for an unset variable, as written in the table: the value .env.example shows when
 * the schema reads it as that same default (`1.00` rather than the micro-dollars it becomes), else the
 * default itself.
 */
function defaultOf(field: z.ZodType, example: string | undefined): string {
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return "required";
  const value: unknown = parsed.data;
  if (value === undefined) return "";
  if (example) {
    const fromExample = field.safeParse(example);
    if (fromExample.success && same(fromExample.data, value)) return code(example);
  }
  if (Array.isArray(value)) return value.length === 0 ? "" : code(value.join(","));
  if (typeof value === "string") {
    // Paths the schema resolves against the repository root are shown as written, relative to it.
    return code(value.startsWith(ROOT) ? value.slice(ROOT.length) : value);
  }
  if (typeof value === "bigint") return code(String(value));
  if (typeof value === "object" && value !== null) {
    return Object.keys(value).length === 0 ? "" : code(JSON.stringify(value));
  }
  return code(String(value));
}

/** Deep equality of parsed values (bigints included, as money is). */
const same = (a: unknown, b: unknown) => {
  const text = (v: unknown) => JSON.stringify(v, (_key, x) => (typeof x === "bigint" ? `${x}n` : x));
  return text(a) === text(b);
};

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replaceAll("|", "\\|");

function table(rows: string[][]): string[] {
  return [
    "| variable | default | meaning |",
    "|---|---|---|",
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ];
}

export function configurationDoc(envExample: string): string {
  const documented = documentedVariables(envExample);
  const secrets = new Set<string>(LOCAL_SECRETS);
  const parsed = new Set<string>();
  const marked = (name: string, meaning: string) => (secrets.has(name) ? `${meaning} *secret*` : meaning);
  const lines = [
    "# Configuration",
    "",
    "<!-- Generated by scripts/docs/configuration.ts from the services' env schemas and .env.example;",
    "     edit those, then run `node --import tsx scripts/docs/configuration.ts`. -->",
    "",
    "Every service reads its variables once, at start, with one zod schema (named under each service below),",
    "and stops with one line naming each bad variable. An empty value counts as unset; values are trimmed.",
    "Nothing else reads the environment: a service hands its parsed configuration to the code that needs it.",
    "`npm start` also reads `.env` at the repository root (a variable already in the environment wins), and",
    "generates each missing local secret (marked *secret* below) once into `$DATA_DIR/secrets.json` (mode",
    "0600). [`.env.example`](../.env.example) lists every variable with its default; this page lists them by",
    'the service that reads them. "required" means the service does not start without it; an empty default',
    "means unset. How to set them in a deployment: [operations.md](operations.md).",
  ];
  for (const service of SERVICES) {
    lines.push("", `## ${service.title}`, "", `Parsed by ${service.where}`, "");
    const rows = Object.entries(service.schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
      parsed.add(name);
      const meaning = SYSTEM.has(name)
        ? "The operating system's own; the local hosting driver passes it on to agents' wrappers."
        : (service.meanings?.[name] ?? documented.get(name)?.meaning ?? "");
      const fallback = service.computed?.[name] ?? defaultOf(field, documented.get(name)?.value);
      return [code(name), fallback, marked(name, meaning)];
    });
    lines.push(...table(rows));
    if (service.patterns) lines.push("", ...service.patterns.map((text) => `- ${text}`));
  }
  lines.push("", "## Read elsewhere", "");
  const rows = [...documented]
    .filter(([name]) => !parsed.has(name))
    .map(([name, { meaning }]) => [code(name), "", marked(name, `${meaning} Read by ${OTHERS[name]}.`)]);
  lines.push(...table(rows), "");
  return lines.join("\n");
}

/** Names .env.example documents that no schema parses and OTHERS does not explain (the test wants none). */
export function unexplainedVariables(envExample: string): string[] {
  const parsed = new Set(SERVICES.flatMap((service) => Object.keys(service.schema.shape)));
  return [...documentedVariables(envExample).keys()].filter((name) => !parsed.has(name) && !(name in OTHERS));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const envExample = readFileSync(join(ROOT, ".env.example"), "utf8");
  writeFileSync(join(ROOT, DOC_PATH), configurationDoc(envExample));
  process.stdout.write(`wrote ${DOC_PATH}\n`);
}
