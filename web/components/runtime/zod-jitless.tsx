"use client";

import { z } from "zod";

// Zod decides whether to compile its parsers by trying `Function("")`. The Content-Security-Policy allows
// no eval (lib/infra/http/security-headers.ts), so in a browser that try is refused and reported as a violation
// on every page that validates anything: tell Zod up front not to try (on the server it keeps compiling).
if (typeof window !== "undefined") z.config({ jitless: true });

/** Rendered once by the root layout so the setting above is made before any page's code parses. */
export function ZodJitless(): null {
  return null;
}
