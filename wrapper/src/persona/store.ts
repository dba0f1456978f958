/**
 * The evaluation history on disk: `<OPENCLAW_STATE_DIR>/platform/persona.json`, `{"runs": [...]}` oldest
 * first, the last HISTORY_LIMIT runs. Written whole, atomically (temp file + rename, 0600); read once and
 * then kept in memory, since this wrapper is the file's only writer.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { failed } from "../http/errors";
import { writeFileAtomic } from "../runtime/config-file";
import { DIMENSIONS } from "./probes";

/** Runs kept (the oldest go first). */
export const HISTORY_LIMIT = 100;

const score = z.number().min(0).max(1);
const storedRun = z.object({
  id: z.string(),
  timestamp: z.string(),
  probeSet: z.string(),
  dimensions: z.array(z.enum(DIMENSIONS)),
  scores: z.partialRecord(z.enum(DIMENSIONS), score),
  overallScore: score,
  driftDetected: z.boolean(),
  /** The mean overall score of the previous runs the drift check compared with (null for the first run). */
  baseline: score.nullable(),
});
export type StoredRun = z.infer<typeof storedRun>;
const storeFile = z.object({ runs: z.array(storedRun) });

export interface PersonaStore {
  /** Every kept run, oldest first. */
  runs(): Promise<readonly StoredRun[]>;
  /**
   * Appends the run `build` makes from the runs before it, one recording at a time (so two runs never
   * compare against the same baseline and lose one another), and returns it with the kept runs after it.
   */
  record(build: (previous: readonly StoredRun[]) => StoredRun): Promise<readonly StoredRun[]>;
}

export function createPersonaStore(path: string): PersonaStore {
  let loaded: Promise<readonly StoredRun[]> | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const load = (): Promise<readonly StoredRun[]> => {
    loaded ??= readRuns(path).catch((err: unknown) => {
      loaded = null; // an unreadable file is read again next time (an operator may fix or remove it)
      throw err;
    });
    return loaded;
  };

  return {
    runs: load,
    record(build) {
      const recorded = queue.then(async () => {
        const previous = await load();
        const runs = [...previous, build(previous)].slice(-HISTORY_LIMIT);
        try {
          await writeFileAtomic(path, `${JSON.stringify({ runs }, null, 2)}\n`);
        } catch (err) {
          throw failed(`cannot record the persona evaluation: ${(err as Error).message}`);
        }
        loaded = Promise.resolve(runs);
        return runs;
      });
      queue = recorded.catch(() => undefined);
      return recorded;
    },
  };
}

async function readRuns(path: string): Promise<readonly StoredRun[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw failed(`cannot read the persona evaluation history: ${(err as Error).message}`);
  }
  let parsed: z.infer<typeof storeFile>;
  try {
    parsed = storeFile.parse(JSON.parse(text));
  } catch {
    throw failed("the persona evaluation history (persona.json) is not valid; remove it to start over");
  }
  return parsed.runs;
}
