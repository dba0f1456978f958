/** A form's or panel's error line, announced to screen readers; nothing when there is no message. */
export function ErrorAlert({ message }: { message: string | null | undefined }) {
  return message ? (
    <p className="error" role="alert">
      {message}
    </p>
  ) : null;
}
