"use client";

import { type ReactNode, useState } from "react";
import { api } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Field } from "@/components/ui";

/**
 * An inline form for one Solana address that reads `path?address=…`, and what `children` makes of the
 * answer; a new lookup starts from nothing (a failed one shows its error, not the answer before).
 */
export function AddressLookup<T>({
  path,
  formLabel,
  fieldLabel,
  name,
  submit,
  busyLabel,
  children,
}: {
  path: string;
  /** The form's accessible name. */
  formLabel: string;
  fieldLabel: string;
  name: string;
  submit: string;
  busyLabel?: string;
  children: (answer: T) => ReactNode;
}) {
  const [answer, setAnswer] = useState<T | null>(null);
  const action = useAction();

  async function lookup(data: FormData) {
    const address = String(data.get(name) ?? "").trim();
    setAnswer(null);
    setAnswer(await api<T>(`${path}?address=${encodeURIComponent(address)}`));
  }

  return (
    <>
      <ActionForm
        action={action}
        label={formLabel}
        onSubmit={lookup}
        className="inline"
        submit={submit}
        busyLabel={busyLabel}
      >
        <Field label={fieldLabel} name={name} required minLength={32} maxLength={44} autoComplete="off" />
      </ActionForm>
      {answer === null ? null : children(answer)}
    </>
  );
}
