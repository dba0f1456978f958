import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { webContext } from "@/lib/infra/context";
import { loginPathFor, REQUEST_PATH_HEADER } from "@/lib/infra/http/return-path";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import { dashboardAreas } from "./areas";
import { DashboardNav } from "./nav";
import { SessionUserProvider } from "./session-user";
import { SignOutButton } from "./sign-out-button";

export const metadata: Metadata = {
  title: { template: "%s · Agent Platform", default: "Dashboard · Agent Platform" },
};

/**
 * Every dashboard page: the session is checked here, on the server, once per request (a signed-out
 * visitor is redirected to /login, which returns to the page afterwards, before any page renders); the
 * header shows who is signed in, the navigation comes from ./areas.ts.
 */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const session = await findSessionUser(webContext(), token);
  // Signed out: sign in first, then back to the page asked for.
  if (!session) redirect(loginPathFor((await headers()).get(REQUEST_PATH_HEADER)));
  // What the browser may know of the session (never the backend role it signs for).
  const user = { id: session.id, name: session.name, email: session.email, isAdmin: session.isAdmin };
  const areas = dashboardAreas.filter((area) => !area.adminOnly || user.isAdmin);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="shell-header">
        <a className="brand" href="/dashboard">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Agent Platform</span>
        </a>
        <div className="shell-user">
          <p className="shell-user-text" data-testid="signed-in-as">
            {/* The name the user gave, else the email: each person shown once. */}
            <span className="shell-user-name" title={user.name ? user.email : undefined}>
              {user.name || user.email}
            </span>
            {user.isAdmin ? (
              <>
                {" "}
                <span className="badge badge-info">admin</span>
              </>
            ) : null}
          </p>
          <SignOutButton />
        </div>
      </header>
      <div className="shell-body">
        <DashboardNav areas={areas} />
        <main id="main" className="shell-main" tabIndex={-1}>
          <SessionUserProvider user={user}>{children}</SessionUserProvider>
        </main>
      </div>
    </div>
  );
}
