"use client";

import type { ButtonHTMLAttributes, Ref } from "react";
import { useHydrated } from "./hydrated";

export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost";

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  size?: "md" | "sm";
  /** Shows `busyLabel` (or the children) disabled while an action runs. */
  busy?: boolean;
  busyLabel?: string;
  ref?: Ref<HTMLButtonElement>;
};

/**
 * The one button: `primary` for the page's main action, `secondary` otherwise, `danger` destroys. Every
 * button's work is done by the page's script, so it stays disabled until the script has loaded: a press
 * before would do nothing (a form would be sent to a page that ignores it).
 */
export function Button({
  variant = "primary",
  size = "md",
  busy = false,
  busyLabel,
  className,
  children,
  disabled,
  type = "button",
  ...rest
}: ButtonProps) {
  const hydrated = useHydrated();
  const classes = ["btn", `btn-${variant}`, size === "sm" ? "btn-sm" : "", className ?? ""]
    .filter(Boolean)
    .join(" ");
  return (
    <button
      type={type}
      className={classes}
      disabled={disabled || busy || !hydrated}
      aria-busy={busy || undefined}
      {...rest}
    >
      {busy && busyLabel ? busyLabel : children}
    </button>
  );
}
