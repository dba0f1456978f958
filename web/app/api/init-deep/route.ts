import { webContext } from "@/lib/infra/context";
import { parseWith, readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { adminRequired } from "@/lib/initdeep/errors";
import { initDeepBody, initDeepQuery } from "@/lib/initdeep/inputs";
import { agentsFilesStatus, generateAgentsFiles } from "@/lib/initdeep/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/init-deep (public) `?path=`: `{rootPath, status[] {directory, hasAgentsMd, path}, allGenerated}`. */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const query = parseWith(initDeepQuery, Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await agentsFilesStatus(webContext().config, query.path), {
    headers: { "cache-control": "no-store" },
  });
});

/**
 * POST /api/init-deep (session, admin: it writes files on the server) `{path?, force?, dryRun?, maxDepth?}`:
 * `{success, dryRun, summary {total, generated, skipped, errors}, results[] {path, generated, skipped, error}}`.
 */
export const POST = route({ auth: { area: "context", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  if (!user.isAdmin) throw adminRequired();
  const input = await readJson(request, initDeepBody, { optional: true });
  return Response.json(await generateAgentsFiles(ctx.config, input));
});
