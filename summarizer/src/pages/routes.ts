import { HttpError } from "@svc/common";
import { type Request, type Response, Router } from "express";
import { pageRequestSchema } from "./schema";
import { extractUrl, type PageDeps, type PageTimings, summarizeUrl } from "./service";

/** `POST /api/summarize` and `POST /api/extract` (no auth). */
export function pageRoutes(deps: PageDeps): Router {
  const router = Router();
  const handle = (run: typeof summarizeUrl | typeof extractUrl) => async (req: Request, res: Response) => {
    const { url } = parseBody(req);
    res.locals.logFields = { targetHost: safeHost(url) };
    const timings: PageTimings = {};
    const result = await run(url, deps, timings);
    res.setHeader("server-timing", serverTiming(timings));
    res.json(result);
  };
  router.post("/api/summarize", handle(summarizeUrl));
  router.post("/api/extract", handle(extractUrl));
  return router;
}

function parseBody(req: Request) {
  if (!req.is("application/json"))
    throw new HttpError(400, "bad_content_type", "Content-Type must be application/json");
  const parsed = pageRequestSchema.safeParse(req.body);
  if (!parsed.success)
    throw new HttpError(400, "invalid_body", parsed.error.issues[0]?.message ?? "invalid body");
  return parsed.data;
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** `Server-Timing: fetch;dur=1.20, extract;dur=4.70` (milliseconds), for operators and the benchmark. */
function serverTiming({ fetchMs = 0, extractMs = 0 }: PageTimings): string {
  return `fetch;dur=${fetchMs.toFixed(2)}, extract;dur=${extractMs.toFixed(2)}`;
}
