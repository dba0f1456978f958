import { handleOpenSession } from "@/lib/gateway/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/**
 * POST /api/wallet/sessions `{deposit}` with `Authorization: Payment <credential>` paying the deposit: 201
 * `{sessionId, walletAddress, balance, expiresAt}`; without a valid credential 402 with an MPP challenge.
 */
export const POST = route({ auth: "public", errorShape: "gateway" }, (request: Request) =>
  handleOpenSession(webContext(), request),
);
