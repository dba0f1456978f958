/**
 * Command generators shared by the property tests and the benchmark: well-formed simple commands built
 * from real program names and argument words, the table's well-formed rows, and a deterministic corpus
 * (seeded) mixing every category with the tricky forms (sequences, pipes, wrappers, `bash -c`,
 * substitutions).
 */
import { TABLE } from "./table";

export const PROGRAMS = [
  "ls",
  "cat",
  "grep",
  "sed",
  "awk",
  "echo",
  "rm",
  "cp",
  "mv",
  "chmod",
  "chown",
  "dd",
  "mkfs",
  "sudo",
  "su",
  "git",
  "gh",
  "npm",
  "npx",
  "pip",
  "apt",
  "curl",
  "wget",
  "ssh",
  "scp",
  "rsync",
  "docker",
  "kubectl",
  "helm",
  "terraform",
  "psql",
  "mysql",
  "redis-cli",
  "python3",
  "node",
  "bash",
  "sh",
  "env",
  "xargs",
  "find",
  "tee",
  "date",
  "ps",
  "uname",
  "make",
  "yarn",
  "cargo",
  "pulumi",
  "aws",
  "kill",
  "systemctl",
  "tar",
  "unzip",
  "foo",
] as const;

export const ARG_WORDS = [
  "-rf",
  "-r",
  "-f",
  "-la",
  "/",
  "/*",
  "~",
  "$HOME",
  ".",
  "*",
  "build",
  "src/app.ts",
  "/etc/passwd",
  "/dev/sda",
  "of=/dev/sda",
  "if=/dev/zero",
  "777",
  "755",
  "+x",
  "root",
  "push",
  "--force",
  "origin",
  "main",
  "feature",
  "status",
  "log",
  "diff",
  "commit",
  "-m",
  "'msg'",
  "install",
  "ls",
  "publish",
  "-X",
  "POST",
  "-d",
  "'a=1'",
  "https://example.com",
  "get",
  "pods",
  "delete",
  "ns",
  "destroy",
  "apply",
  "plan",
  "prune",
  "system",
  "run",
  "ps",
  "-c",
  "'ls -la'",
  "'rm -rf /'",
  '"DROP TABLE users"',
  "'SELECT 1'",
  "FLUSHALL",
  "-e",
  "-i",
  "-n",
  "$(id)",
  "`whoami`",
  '"$(rm -rf /)"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
  "${X}",
  "a#b",
  "--",
  "-u",
  "bob",
  "x.txt",
  ".env",
  "~/.ssh/id_rsa",
  "> out.txt",
  "> /dev/sda",
  "2>/dev/null",
  ">> .env",
  "< in.txt",
  "-exec",
  "rm",
  "{}",
  "\\;",
  "-delete",
  "repo",
  "release",
  "create",
  "--public",
  "-9",
  "1234",
  "restart",
  "nginx",
  "--version",
] as const;

/** A tiny deterministic PRNG (mulberry32): the same seed gives the same corpus. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MALFORMED = /<<|(?:^|\s)#/;

/** Table rows usable as parts of a longer line: no here-document, no comment, no syntax error. */
export function wellFormedTableCommands(isUnparseable: (command: string) => boolean): string[] {
  return TABLE.map(([command]) => command).filter(
    (command) => command.trim() !== "" && !MALFORMED.test(command) && !isUnparseable(command),
  );
}

/** `'…'` quoting of any text for `bash -c`. */
export function singleQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

function simpleCommand(random: () => number): string {
  const words: string[] = [pick(random, PROGRAMS)];
  const count = Math.floor(random() * 5);
  for (let i = 0; i < count; i++) words.push(pick(random, ARG_WORDS));
  return words.join(" ");
}

const WRAPPERS = [
  "sudo ",
  "env ",
  "nohup ",
  "time ",
  "nice -n 5 ",
  "timeout 10 ",
  "FOO=1 ",
  "/usr/bin/",
  "command ",
  "exec ",
];
const JOINERS = ["; ", " && ", " || ", " | ", "\n"];

/**
 * `size` commands from `seed`: a third table rows, a third generated simple commands, a third compound
 * forms (wrappers, sequences and pipes, `bash -c`, substitutions, `xargs`, here-strings).
 */
export function generateCorpus(size: number, seed: number): string[] {
  const random = seededRandom(seed);
  const table = TABLE.map(([command]) => command);
  const corpus: string[] = [];
  for (let i = 0; i < size; i++) {
    const kind = i % 3;
    if (kind === 0) corpus.push(pick(random, table));
    else if (kind === 1) corpus.push(simpleCommand(random));
    else {
      const base = random() < 0.5 ? simpleCommand(random) : pick(random, table);
      const form = Math.floor(random() * 6);
      if (form === 0) corpus.push(`${pick(random, WRAPPERS)}${base}`);
      else if (form === 1) corpus.push(`${simpleCommand(random)}${pick(random, JOINERS)}${base}`);
      else if (form === 2) corpus.push(`bash -c ${singleQuote(base)}`);
      else if (form === 3) corpus.push(`echo "$(${simpleCommand(random)})" | ${simpleCommand(random)}`);
      else if (form === 4) corpus.push(`find . -name '*.log' | xargs ${simpleCommand(random)}`);
      else corpus.push(`${simpleCommand(random)} && (cd /tmp; ${simpleCommand(random)}) | tee out.txt`);
    }
  }
  return corpus;
}
