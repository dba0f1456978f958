import type { ApiOperation } from "@svc/common/openapi/index";
import { crossSite } from "../infra/openapi/responses";
import { partnerInquiryBody, partnerInquiryResponse } from "./inputs";

/** Partner inquiries. */
export const partnersOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/partner",
    summary: "Send a partner inquiry (public, limited per IP)",
    tags: ["partners"],
    auth: ["none"],
    body: partnerInquiryBody,
    success: { status: 200, description: "`{success, fastTrack, message}`", schema: partnerInquiryResponse },
    errors: {
      400: "missing name, email or message, or another bad field",
      ...crossSite,
      429: "too many inquiries from this address (`retryAfterSeconds`)",
    },
  },
];
