"use client";

import type { ReactNode } from "react";
import { messageOf } from "../data/api";
import { Alert, Notice } from "../ui/alert";
import { Button, type ButtonVariant } from "../ui/button";
import type { Action } from "./use-action";

export interface ActionStatusProps {
  /** The status line's colour ("success" by default; "info" for a quiet line). */
  tone?: "info" | "success" | "warning";
  /** A read of the panel's data that failed: shown on the error line when the action has no error. */
  loadError?: unknown;
  /** The status line breaks anywhere (it holds an address or a URL). */
  breakAnywhere?: boolean;
  statusTestId?: string;
}

/**
 * An action's two lines: its success (role "status", announced politely) and its error (role "alert");
 * each is there only while it has something to say.
 */
export function ActionStatus({
  action,
  tone = "success",
  loadError,
  breakAnywhere = false,
  statusTestId,
}: ActionStatusProps & { action: Pick<Action, "status" | "error"> }) {
  const status =
    breakAnywhere && action.status ? (
      <span style={{ overflowWrap: "anywhere" }}>{action.status}</span>
    ) : (
      action.status
    );
  return (
    <>
      <Notice tone={tone} testId={statusTestId}>
        {status}
      </Notice>
      <Alert message={action.error || (loadError ? messageOf(loadError) : "")} />
    </>
  );
}

/**
 * A form that runs `onSubmit` as `action` (see useAction), then its footer: the submit button (busy while
 * a run without a key — the form's own — is under way, and off until the page's script has loaded), any
 * `buttons` beside it, and after the form the action's status and error lines. `replacedBy` stands in the form's place when it cannot be used (no
 * company, no agent yet); the lines stay.
 */
export function ActionForm<F extends string>({
  action,
  label,
  onSubmit,
  submit,
  busyLabel,
  variant,
  size,
  disabled,
  buttons,
  buttonRow = false,
  className,
  replacedBy,
  "aria-busy": ariaBusy,
  children,
  ...lines
}: ActionStatusProps & {
  action: Action<F>;
  /** The form's accessible name. */
  label: string;
  onSubmit: (data: FormData, form: HTMLFormElement) => Promise<unknown>;
  /** The submit button's text. */
  submit: ReactNode;
  busyLabel?: string;
  variant?: ButtonVariant;
  size?: "md" | "sm";
  /** The form cannot be sent (the page says why). */
  disabled?: boolean;
  buttons?: ReactNode;
  /** The submit button and `buttons` sit in one row of their own (`.actions`). */
  buttonRow?: boolean;
  className?: string;
  replacedBy?: ReactNode;
  "aria-busy"?: boolean;
  children?: ReactNode;
}) {
  const footer = (
    <>
      <Button
        type="submit"
        variant={variant}
        size={size}
        busy={action.running === ""}
        busyLabel={busyLabel}
        disabled={disabled}
      >
        {submit}
      </Button>
      {buttons}
    </>
  );
  return (
    <>
      {replacedBy !== undefined ? (
        replacedBy
      ) : (
        <form
          method="post"
          onSubmit={action.onSubmit(onSubmit)}
          className={className}
          aria-label={label}
          aria-busy={ariaBusy}
        >
          {children}
          {buttonRow ? <span className="actions">{footer}</span> : footer}
        </form>
      )}
      <ActionStatus action={action} {...lines} />
    </>
  );
}
