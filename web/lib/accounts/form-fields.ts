/**
 * Which field of an account form a refusal is about (issue 26 item 7): the error body's `field` when the
 * server names it, else the label its message starts with ("New password must be…"). Pure: the pages'
 * forms import it.
 */
export function accountFieldOf<F extends string>(err: unknown, labels: Record<F, string>): F | undefined {
  const named = (err as { body?: { field?: unknown } } | null)?.body?.field;
  if (typeof named === "string" && named in labels) return named as F;
  const message = err instanceof Error ? err.message.toLowerCase() : "";
  return (Object.keys(labels) as F[]).find((field) => message.startsWith(labels[field].toLowerCase()));
}
