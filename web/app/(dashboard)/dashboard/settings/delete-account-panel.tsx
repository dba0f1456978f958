"use client";

import { useState } from "react";
import { api, useResource } from "@/components/data";
import { ActionStatus, leavePage, useAction } from "@/components/forms";
import { Card, ConfirmButton, Field } from "@/components/ui";
import { accountFieldOf } from "@/lib/accounts/form-fields";
import type { AccountSummary } from "@/lib/accounts/service";

/**
 * Deleting the account (issue 26 item 7): what goes, the password (or, without one, the email typed out),
 * then a confirmation step. Afterwards the sign-in page says it is done.
 */
export function DeleteAccountPanel() {
  const account = useResource<AccountSummary>("/api/account");
  const [value, setValue] = useState("");
  const action = useAction({
    fields: (err) => accountFieldOf(err, { password: "Password", confirm: "Confirmation" }),
  });
  const a = account.data;
  if (!a) return null;
  const fieldError = action.fieldErrors.password ?? action.fieldErrors.confirm;

  const remove = () =>
    action.run(async () => {
      await api("/api/account", {
        method: "DELETE",
        json: a.hasPassword ? { password: value } : { confirm: value },
      });
      await leavePage("/login?deleted=1");
    });

  return (
    <Card title="Delete account" testId="delete-account-card" className="card-danger">
      <p>
        Deleting your account removes your agents (from the hosting platform too), their files, your API keys,
        passkeys, sessions, scheduled tasks and your wallets&apos; keys. Job-board listings you published are
        closed; they and your agents&apos; claims stay on the board as a deleted user&apos;s. It cannot be
        undone.
      </p>
      <form method="post" onSubmit={(event) => event.preventDefault()} aria-label="Delete your account">
        <Field
          {...(a.hasPassword
            ? {
                label: "Password",
                name: "deletePassword",
                type: "password",
                autoComplete: "current-password",
              }
            : {
                label: `Type your email (${a.email}) to confirm`,
                name: "deleteConfirm",
                autoComplete: "off",
              })}
          required
          value={value}
          onChange={(event) => setValue(event.target.value)}
          error={fieldError}
        />
        <ConfirmButton
          question="Delete your account and everything in it, for good?"
          confirmLabel="Delete my account"
          disabled={value.trim() === ""}
          busy={action.busy}
          onConfirm={remove}
        >
          Delete account
        </ConfirmButton>
      </form>
      <ActionStatus action={action} />
    </Card>
  );
}
