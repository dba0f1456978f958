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

function describedBy(id: string, hint?: string, error?: string): string | undefined {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

/** A control's id, and what screen readers say of it: invalid while it has an error, its hint and error. */
function controlAria(id: string, hint?: string, error?: string) {
  return { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy(id, hint, error) };
}

/** A control (`children`, whose id is `id`) with its label above it and its hint and error lines under it. */
function Labelled({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className={errorClass(error)} role="alert">
          {error}
        </p>
      ) : null}
    </div>
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
    <Labelled id={name} label={label} hint={hint} error={shown}>
      <input
        name={name}
        ref={limit.setRef}
        {...controlAria(name, hint, shown)}
        onChange={(event) => {
          if (maxLength !== undefined) limit.measure();
          onChange?.(event);
        }}
        {...input}
      />
    </Labelled>
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
    <Labelled id={name} label={label} hint={hint} error={error}>
      <select name={name} {...controlAria(name, hint, error)} {...select}>
        {children}
      </select>
    </Labelled>
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
    <Labelled id={id} label={label} hint={hint} error={error}>
      <textarea name={name} {...controlAria(id, hint, error)} {...textarea} />
    </Labelled>
  );
}
