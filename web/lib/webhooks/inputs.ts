import { z } from "zod";

/** `POST /api/webhooks/hosting`: any JSON object; the service reads the fields it knows. */
export const hostingEventBody = z.record(z.string(), z.unknown());
