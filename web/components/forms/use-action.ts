"use client";

import { type FormEvent, useState } from "react";
import { fieldOf, messageOf } from "../data/api";

/**
 * A refusal the page makes itself, before or instead of asking the server ("Choose a file to upload."):
 * thrown inside an action, it is shown as the server's would be, under `field` when it names one.
 */
export class FormError extends Error {
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.name = "FormError";
    this.field = field;
  }
}

export interface ActionOptions<F extends string> {
  /**
   * The form's fields a server error may name (its body's `field`, see fieldOf), or how to find the field
   * of an error (`() => "rpcUrl"`: every failure is shown under that field).
   */
  fields?: readonly F[] | ((err: unknown) => F | undefined);
  /** A failure in words; messageOf by default. A FormError's own message is shown as it is. */
  message?: (err: unknown) => string;
  /** Called after every run, succeeded or not, once it is no longer busy (to read the lists again). */
  after?: () => unknown;
}

/** Where a failure is shown: under `field` when the form has it, else on the form's error line. */
export function failureOf<F extends string>(
  err: unknown,
  { fields, message = messageOf }: Pick<ActionOptions<F>, "fields" | "message"> = {},
): { message: string; field?: F } {
  if (err instanceof FormError) return { message: err.message, field: err.field as F | undefined };
  const field = typeof fields === "function" ? fields(err) : fields ? fieldOf(err, fields) : undefined;
  return field ? { message: message(err), field } : { message: message(err) };
}

/** An action's work: it answers the success line to show (a string), or nothing. */
export type ActionWork = () => Promise<unknown>;

export interface Action<F extends string = string> {
  /** A run is under way (buttons that start one are off meanwhile). */
  busy: boolean;
  /**
   * The key of the run under way, or null: which of several buttons is busy. A run without a key is the
   * form's own ("", its submit button's).
   */
  running: string | null;
  /** The last success's line ("Company "Acme" created."); cleared by every run. */
  status: string;
  /** The last failure's message when it names none of the form's fields. */
  error: string;
  /** The last failure's message under the field it names. */
  fieldErrors: Partial<Record<F, string>>;
  /**
   * Runs `work`: clears the lines, is busy until it settles, then shows the line it answers, or its
   * failure (by field, see ActionOptions). Never throws; resolves true when the work succeeded.
   */
  run(work: ActionWork, key?: string): Promise<boolean>;
  /** A form's submit handler: no page load; `work` gets the form's data (read before anything changes). */
  onSubmit(
    work: (data: FormData, form: HTMLFormElement) => Promise<unknown>,
    key?: string,
  ): (event: FormEvent<HTMLFormElement>) => void;
}

/**
 * The state of what a form or a button does with the API: busy while it runs, then its success line or
 * its error, by field where the server (or the page, with FormError) names one.
 */
export function useAction<F extends string = string>(options: ActionOptions<F> = {}): Action<F> {
  const [running, setRunning] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [error, setError] = useState("");
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<F, string>>>({});

  async function run(work: ActionWork, key = ""): Promise<boolean> {
    setRunning(key);
    setStatus("");
    setError("");
    setFieldErrors({});
    try {
      const line = await work();
      if (typeof line === "string") setStatus(line);
      return true;
    } catch (err) {
      const failure = failureOf(err, options);
      if (failure.field) setFieldErrors({ [failure.field]: failure.message } as Partial<Record<F, string>>);
      else setError(failure.message);
      return false;
    } finally {
      setRunning(null);
      await options.after?.();
    }
  }

  return {
    busy: running !== null,
    running,
    status,
    error,
    fieldErrors,
    run,
    onSubmit: (work, key) => (event) => {
      event.preventDefault();
      const form = event.currentTarget;
      const data = new FormData(form);
      void run(() => work(data, form), key);
    },
  };
}

/**
 * Goes to another page (after signing out, after deleting the account); never resolves, so the action
 * stays busy until the page is gone.
 */
export function leavePage(url: string): Promise<never> {
  window.location.assign(url);
  return new Promise<never>(() => undefined);
}
