"use client";

import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Button, type ButtonVariant } from "./button";

/**
 * A destructive action behind a confirmation step: the first press shows the question with Confirm and
 * Cancel (focus moves to Cancel, Escape cancels); only Confirm runs `onConfirm`.
 */
export function ConfirmButton({
  children,
  question,
  confirmLabel = "Confirm",
  onConfirm,
  variant = "danger",
  size = "md",
  disabled,
  busy,
  "aria-label": ariaLabel,
}: {
  children: ReactNode;
  question: ReactNode;
  confirmLabel?: string;
  onConfirm: () => unknown;
  variant?: ButtonVariant;
  size?: "md" | "sm";
  disabled?: boolean;
  busy?: boolean;
  "aria-label"?: string;
}) {
  const [asking, setAsking] = useState(false);
  const questionId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);

  useEffect(() => {
    if (asking) cancelRef.current?.focus();
    else if (wasAsking.current) openerRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (!asking) {
    return (
      <Button
        ref={openerRef}
        variant={variant === "danger" ? "secondary" : variant}
        size={size}
        className={variant === "danger" ? "btn-danger-outline" : undefined}
        disabled={disabled}
        busy={busy}
        aria-label={ariaLabel}
        onClick={() => setAsking(true)}
      >
        {children}
      </Button>
    );
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of two buttons with its question, not a fieldset of inputs
    <div
      className="confirm"
      role="group"
      aria-labelledby={questionId}
      onKeyDown={(event) => {
        if (event.key === "Escape") setAsking(false);
      }}
    >
      <span id={questionId} className="confirm-question">
        {question}
      </span>
      <Button
        variant={variant}
        size={size}
        onClick={async () => {
          setAsking(false);
          await onConfirm();
        }}
      >
        {confirmLabel}
      </Button>
      <Button ref={cancelRef} variant="secondary" size={size} onClick={() => setAsking(false)}>
        Cancel
      </Button>
    </div>
  );
}
