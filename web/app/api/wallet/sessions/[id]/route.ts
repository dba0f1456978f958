import { readPaymentSession } from "@/lib/gateway/billing/session";
import { walletAddressHeader } from "@/lib/gateway/inputs";
import { webContext } from "@/lib/infra/context";
import { parseWith } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/** GET /api/wallet/sessions/:id with `X-Wallet-Address`: the session; 404 for an unknown id or another wallet. */
export const GET = route(
  { auth: "public", errorShape: "gateway" },
  async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
    const { id } = await params;
    const headers = { "X-Wallet-Address": request.headers.get("x-wallet-address") ?? undefined };
    const wallet = parseWith(walletAddressHeader, headers)["X-Wallet-Address"];
    const session = await readPaymentSession(webContext().db, id, wallet);
    return Response.json(session, { headers: { "cache-control": "no-store" } });
  },
);
