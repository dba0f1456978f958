import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";

/** The CSRF token of the password sign-in (./service.ts). */
export const csrfOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/auth/csrf",
    summary: "A CSRF token (`{token, signed, header}`) plus its double-submit cookie",
    tags: ["auth"],
    auth: ["none"],
    success: {
      status: 200,
      description: "the token",
      schema: z.object({ token: z.string(), signed: z.string(), header: z.string() }),
    },
  },
];
