"use client";

import { api } from "@/components/data";
import { leavePage, useAction } from "@/components/forms";
import { Button } from "@/components/ui";

/** Ends the session, then goes to the login page. */
export function SignOutButton() {
  const action = useAction();
  const signOut = () =>
    action.run(async () => {
      await api("/api/auth/signout", { method: "POST" });
      await leavePage("/login");
    });
  return (
    <>
      <Button variant="secondary" size="sm" onClick={signOut} busy={action.busy} busyLabel="Signing out…">
        Sign out
      </Button>
      {action.error ? (
        <span className="error" role="alert">
          {action.error}
        </span>
      ) : null}
    </>
  );
}
