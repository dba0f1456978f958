"use client";

import type { InputHTMLAttributes, ReactNode, Ref, SelectHTMLAttributes } from "react";

type FieldProps = InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  name: string;
  error?: string;
  hint?: string;
  ref?: Ref<HTMLInputElement>;
};

function describedBy(name: string, hint?: string, error?: string): string | undefined {
  return [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ") || undefined;
}

function FieldNotes({ name, hint, error }: { name: string; hint?: string; error?: string }) {
  return (
    <>
      {hint ? (
        <p id={`${name}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${name}-error`} className="error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** A labelled input whose error sits right under it and is announced to screen readers. */
export function Field({ label, name, error, hint, ...input }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(name, hint, error)}
        {...input}
      />
      <FieldNotes name={name} hint={hint} error={error} />
    </div>
  );
}

type SelectFieldProps = SelectHTMLAttributes<HTMLSelectElement> & {
  label: string;
  name: string;
  error?: string;
  hint?: string;
  children: ReactNode;
};

/** A labelled select, with the same hint and error lines as Field. */
export function SelectField({ label, name, error, hint, children, ...select }: SelectFieldProps) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <select
        id={name}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(name, hint, error)}
        {...select}
      >
        {children}
      </select>
      <FieldNotes name={name} hint={hint} error={error} />
    </div>
  );
}
