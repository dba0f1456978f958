/** Longest file name after sanitizing. */
export const FILENAME_MAX_LENGTH = 128;

/**
 * Filename sanitizing, in this order: leading dots removed; every character (Unicode code point)
 * outside `a-zA-Z0-9._-` becomes `_`; truncated to 128 characters; an empty result becomes
 * `upload_<timestamp>` (milliseconds since the epoch of `now`).
 */
export function sanitizeFilename(name: string, now: Date): string {
  const cleaned = name
    .replace(/^\.+/, "")
    .replace(/[^a-zA-Z0-9._-]/gu, "_")
    .slice(0, FILENAME_MAX_LENGTH);
  return cleaned === "" ? `upload_${now.getTime()}` : cleaned;
}

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
export const DEFAULT_MIME_TYPE = "application/octet-stream";

/** The part's media type (`type/subtype`, lower case, no parameters) or `application/octet-stream`. */
export function sanitizeMimeType(value: string | undefined): string {
  const type = value?.split(";")[0]?.trim().toLowerCase() ?? "";
  return MIME_TYPE.test(type) ? type : DEFAULT_MIME_TYPE;
}
