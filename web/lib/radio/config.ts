import { httpUrl } from "@svc/common";

/** The streaming-service identity area's variables. */
export const radioEnv = {
  /** The radio service's API (`/api/djs/me`, `/api/djs/{slug}/stats`, `/api/streams/live`). */
  RADIO_API_URL: httpUrl().default("https://basefm.space"),
};
