import { HttpError } from "@svc/common";
import { type Request, type Response, Router } from "express";
import { pageRequestSchema } from "./schema";
import { extractUrl, type PageDeps, summarizeUrl } from "./service";

/** `POST /api/summarize` and `POST /api/extract` (no auth). */
export function pageRoutes(deps: PageDeps): Router {
  const router = Router();
  const handle = (run: typeof summarizeUrl | typeof extractUrl) => async (req: Request, res: Response) => {
    const { url } = parseBody(req);
    res.locals.logFields = { targetHost: safeHost(url) };
    res.json(await run(url, deps));
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
