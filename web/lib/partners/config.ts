import { positiveInt } from "@svc/common";
import { z } from "zod";

/** The partner-inquiry variables (spread into the web's env schema). */
export const partnersEnv = {
  /** Where a notification of each partner inquiry is mailed; unset: inquiries are only stored. */
  PARTNER_NOTIFY_EMAIL: z.email("must be an email address").optional(),
  /** Partner inquiries one client IP may send per hour (`POST /api/partner`). */
  PARTNER_RATE_LIMIT_PER_HOUR: positiveInt(5),
};
