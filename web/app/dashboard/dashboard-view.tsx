"use client";

import { useCallback, useEffect, useState } from "react";
import { api, messageOf } from "@/components/api";
import type { AccountSummary as Account } from "@/lib/accounts/service";
import { AgentPanel } from "./agent-panel";
import { ApiKeysPanel } from "./api-keys-panel";
import { PasskeysPanel } from "./passkeys-panel";

interface Trial {
  active: boolean;
  endsAt: string;
  daysRemaining: number;
}

export function DashboardView({ justVerified }: { justVerified: boolean }) {
  const [account, setAccount] = useState<Account | null>(null);
  const [trial, setTrial] = useState<Trial | null>(null);
  const [error, setError] = useState("");

  const load = useCallback(async () => {
    const session = await api<{ user: unknown }>("/api/auth/session");
    if (!session.user) {
      window.location.replace("/login");
      return;
    }
    const [a, t] = await Promise.all([api<Account>("/api/account"), api<Trial>("/api/trial")]);
    setAccount(a);
    setTrial(t);
  }, []);

  useEffect(() => {
    load().catch((err: unknown) => setError(messageOf(err)));
  }, [load]);

  async function signOut() {
    await api("/api/auth/signout", { method: "POST" });
    window.location.assign("/login");
  }

  if (error) {
    return (
      <main>
        <p className="error" role="alert">
          {error}
        </p>
      </main>
    );
  }
  if (!account || !trial) {
    return (
      <main>
        <p aria-live="polite">Loading your dashboard…</p>
      </main>
    );
  }
  return (
    <main>
      <header className="topbar">
        <h1>Dashboard</h1>
        <button type="button" className="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <p data-testid="signed-in-as">
        Signed in as <strong>{account.name}</strong> ({account.email}){account.isAdmin ? " · admin" : ""}
      </p>
      {justVerified ? (
        <p className="notice" role="status">
          Your email address is confirmed.
        </p>
      ) : null}
      {!account.emailVerified ? (
        <p className="notice">Confirm your email address with the link we sent you.</p>
      ) : null}
      <section aria-labelledby="trial-heading">
        <h2 id="trial-heading">Free trial</h2>
        <p data-testid="trial">
          {trial.active
            ? `${trial.daysRemaining} ${trial.daysRemaining === 1 ? "day" : "days"} left (ends ${new Date(trial.endsAt).toLocaleDateString()})`
            : "Your free trial has ended."}
        </p>
      </section>
      <section aria-labelledby="referral-heading">
        <h2 id="referral-heading">Referral code</h2>
        <p>
          Share <code data-testid="referral-code">{account.referralCode}</code>: you and the person who signs
          up with it both get credits. Credits earned: {account.referralCredits}.
        </p>
      </section>
      <AgentPanel />
      <PasskeysPanel />
      <ApiKeysPanel />
    </main>
  );
}
