import { handleGatewayCall } from "@/lib/gateway/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/**
 * POST /api/v1/gateway: routes the call to a plugin once it is paid by card credit (session cookie), an MPP
 * credential (`Authorization: Payment`) or a pre-funded payment session (`X-Session-Id` + `X-Wallet-Address`).
 * Errors in the gateway shape `{error: code, message, ...}`; 402 `payment_required` carries the offers.
 */
export const POST = route(
  { auth: { area: "billing", access: "write", optional: true }, errorShape: "gateway" },
  (request: Request) => handleGatewayCall(webContext(), request),
);
