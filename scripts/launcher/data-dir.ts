import { existsSync } from "node:fs";
import { chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ensurePrivateDir } from "@svc/common/file-modes";

/**
 * The data directory's permissions, set at every start. As root, local agents run as their own OS users
 * and pass through it to their directories under `agents/`: it is 0711 (enterable, not listable), and
 * what is the platform's alone stays closed to them: `secrets.json` (0600, secrets.ts), `files/` (users'
 * uploads) and `mail/` (0700, their files 0600; older versions left them 0755 with 0644 files, closed
 * here), `postgres/` (0700, PostgreSQL's own rule), `agents/<id>/` (the hosting driver's). `runtimes/`
 * is what agents run: the backend keeps it unwritable by others before one runs from it.
 */
export async function secureDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  if (process.getuid?.() === 0) await chmod(dataDir, 0o711);
  for (const name of ["files", "mail"]) {
    const dir = join(dataDir, name);
    if (existsSync(dir)) await ensurePrivateDir(dir);
  }
}
