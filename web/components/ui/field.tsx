"use client";

import {
  type InputHTMLAttributes,
  type ReactNode,
  type Ref,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useCallback,
  useEffect,
  useRef,
  useState,
} from "react";
import { errorClass } from "./alert";

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
        <p id={`${name}-error`} className={errorClass(error)} role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** Characters as the API counts them (Unicode code points: an emoji is one). */
const lengthOf = (value: string) => [...value].length;

/**
 * What `maxLength` becomes: the input is never cut (the browser's attribute would drop what passes it
 * silently, a paste included); the field says it is too long, with the limit, as the API would refuse it.
 */
function useLengthLimit(
  label: string,
  maxLength: number | undefined,
  ref: Ref<HTMLInputElement> | undefined,
) {
  const [length, setLength] = useState(0);
  const input = useRef<HTMLInputElement | null>(null);
  const measure = useCallback(() => {
    if (input.current) setLength(lengthOf(input.current.value));
  }, []);
  useEffect(() => {
    measure();
    // A form's reset puts the default values back without an input event; they are read once it is done.
    const form = input.current?.form;
    const onReset = () => setTimeout(measure, 0);
    form?.addEventListener("reset", onReset);
    return () => form?.removeEventListener("reset", onReset);
  }, [measure]);
  const setRef = useCallback(
    (element: HTMLInputElement | null) => {
      input.current = element;
      if (typeof ref === "function") ref(element);
      else if (ref) ref.current = element;
    },
    [ref],
  );
  const name = label.replace(/\s*\([^)]*\)$/, "");
  const tooLong =
    maxLength !== undefined && length > maxLength
      ? `${name} must be at most ${maxLength} characters (it has ${length})`
      : undefined;
  return { setRef, measure, tooLong };
}

/**
 * A labelled input whose error sits right under it and is announced to screen readers. `maxLength` never
 * cuts what is typed or pasted: past it, the field says so with the limit.
 */
export function Field({ label, name, error, hint, maxLength, ref, onChange, ...input }: FieldProps) {
  const limit = useLengthLimit(label, maxLength, ref);
  const shown = error || limit.tooLong;
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        ref={limit.setRef}
        aria-invalid={shown ? true : undefined}
        aria-describedby={describedBy(name, hint, shown)}
        onChange={(event) => {
          if (maxLength !== undefined) limit.measure();
          onChange?.(event);
        }}
        {...input}
      />
      <FieldNotes name={name} hint={hint} error={shown} />
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

type TextAreaFieldProps = TextareaHTMLAttributes<HTMLTextAreaElement> & {
  label: string;
  name: string;
  /** The element's id when the name is not unique on the page (one form per tool); default the name. */
  id?: string;
  error?: string;
  hint?: string;
};

/** A labelled textarea, with the same hint and error lines as Field. */
export function TextAreaField({ label, name, id = name, error, hint, ...textarea }: TextAreaFieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        {...textarea}
      />
      <FieldNotes name={id} hint={hint} error={error} />
    </div>
  );
}
