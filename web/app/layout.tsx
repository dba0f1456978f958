import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { ZodJitless } from "@/components/runtime/zod-jitless";
import "./globals.css";

export const metadata: Metadata = {
  title: "Agent Platform",
  description: "Deploy and operate AI agents: a gateway, approvals for risky tool calls, jobs and more.",
};

/**
 * Every page is rendered per request: its scripts must carry that request's Content-Security-Policy nonce
 * (lib/infra/http/security-headers.ts), which a page prerendered at build time could not.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        <noscript>
          {/* Buttons wait for the page's script (components/ui/button.tsx): without it, say why they are off. */}
          <p className="noscript">This site needs JavaScript: turn it on to sign in and use the dashboard.</p>
        </noscript>
        <ZodJitless />
        {children}
      </body>
    </html>
  );
}
