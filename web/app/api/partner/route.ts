import { webContext } from "@/lib/context";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/http/body";
import { clientIp } from "@/lib/http/client-ip";
import { route } from "@/lib/http/errors";
import { partnerInquiryBody } from "@/lib/partners/schema";
import { submitPartnerInquiry } from "@/lib/partners/service";

export const dynamic = "force-dynamic";

/** POST /api/partner (public, per-IP limit): 200 `{success, fastTrack, message}`. */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const input = await readJson(request, partnerInquiryBody, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  return Response.json(await submitPartnerInquiry(ctx, input, clientIp(request, ctx.config)));
});
