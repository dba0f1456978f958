"use client";

import { useState } from "react";
import { api, messageOf } from "@/components/data";
import { Button } from "@/components/ui";

/** Ends the session, then goes to the login page. */
export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  async function signOut() {
    setBusy(true);
    setError("");
    try {
      await api("/api/auth/signout", { method: "POST" });
      window.location.assign("/login");
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  }
  return (
    <>
      <Button variant="secondary" size="sm" onClick={signOut} busy={busy} busyLabel="Signing out…">
        Sign out
      </Button>
      {error ? (
        <span className="error" role="alert">
          {error}
        </span>
      ) : null}
    </>
  );
}
