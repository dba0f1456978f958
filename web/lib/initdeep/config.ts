import { z } from "zod";

/** The init-deep area's variables (spread into the web's envSchema). */
export const initDeepEnv = {
  /** The tree `/api/init-deep` reads and writes `AGENTS.md` files in; default: this checkout (the cwd). */
  INIT_DEEP_ROOT: z.string().optional(),
};
