import { webContext } from "@/lib/infra/context";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";
import { partnerInquiryBody } from "@/lib/partners/inputs";
import { submitPartnerInquiry } from "@/lib/partners/service";

export const dynamic = "force-dynamic";

/** POST /api/partner (public, per-IP limit): 200 `{success, fastTrack, message}`. */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const input = await readJson(request, partnerInquiryBody, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  return Response.json(await submitPartnerInquiry(ctx, input, clientIp(request, ctx.config)));
});
