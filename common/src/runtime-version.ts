/**
 * Runtime versions: every layer reports a concrete release number; a floating image tag
 * (`latest`, `main`, `stable`, …, or no tag at all) becomes the managed baseline `2026.4.11`.
 *
 * The one copy of these rules, used by the backend and the web. Pure and dependency-free: safe to import
 * from pages (`@svc/common/runtime-version`).
 */

/** The known-good runtime release the platform manages (factory reset pins it). */
export const MANAGED_BASELINE_VERSION = "2026.4.11";

/** Where the runtime image comes from when only a tag is known. */
export const DEFAULT_RUNTIME_REPOSITORY = "ghcr.io/openclaw/openclaw";

/** The platform's default runtime image. */
export const DEFAULT_RUNTIME_IMAGE = `${DEFAULT_RUNTIME_REPOSITORY}:${MANAGED_BASELINE_VERSION}`;

export interface ImageReference {
  /** Registry and path, without tag or digest: `ghcr.io/openclaw/openclaw`. */
  repository: string;
  /** The tag, or null when there is none. */
  tag: string | null;
  /** `sha256:…` when the image is pinned by digest. */
  digest: string | null;
}

/** A release number: starts with a digit, optionally after `v` (`2026.4.11`, `v1.2.3`, `2026.4.11-beta.1`). */
const RELEASE_TAG = /^v?\d[\w.+-]*$/;

/** Splits `registry[:port]/path[:tag][@digest]`; the tag is the part after the last `:` of the last segment. */
export function parseImageReference(image: string): ImageReference {
  let rest = image.trim();
  let digest: string | null = null;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1) || null;
    rest = rest.slice(0, at);
  }
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.indexOf(":", lastSlash + 1);
  if (colon < 0) return { repository: rest, tag: null, digest };
  return { repository: rest.slice(0, colon), tag: rest.slice(colon + 1) || null, digest };
}

/** Whether a tag names a concrete release rather than a moving pointer. */
export function isReleaseTag(tag: string | null | undefined): tag is string {
  return typeof tag === "string" && RELEASE_TAG.test(tag);
}

const FLOATING_WORDS = new Set(["latest", "main", "master", "stable", "edge", "nightly", "dev", "beta"]);

/** A bare tag (`latest`, `2026.4.11`, empty) rather than an image name. */
function looksLikeBareTag(value: string): boolean {
  if (value === "") return true;
  if (/[/:@]/.test(value)) return false;
  return FLOATING_WORDS.has(value.toLowerCase()) || isReleaseTag(value);
}

/**
 * `{version, image}` of an image reference or a bare tag: the version is the tag when it is a release number,
 * else the managed baseline; the image is the same repository at that version (an image pinned by digest
 * stays as it is). `normalizeRuntimeVersion("ghcr.io/openclaw/openclaw:latest")` →
 * `{version: "2026.4.11", image: "ghcr.io/openclaw/openclaw:2026.4.11"}`.
 */
export function normalizeRuntimeVersion(imageOrTag: string | null | undefined): {
  version: string;
  image: string;
} {
  const value = (imageOrTag ?? "").trim();
  if (looksLikeBareTag(value)) {
    const version = isReleaseTag(value) ? value : MANAGED_BASELINE_VERSION;
    return { version, image: `${DEFAULT_RUNTIME_REPOSITORY}:${version}` };
  }
  const ref = parseImageReference(value);
  const version = isReleaseTag(ref.tag) ? ref.tag : MANAGED_BASELINE_VERSION;
  if (ref.digest) return { version, image: value };
  return { version, image: `${ref.repository}:${version}` };
}

/** The same repository as `image` at tag `version` (factory reset pins the baseline this way). */
export function pinImageVersion(image: string, version: string): string {
  const value = image.trim();
  const repository = looksLikeBareTag(value)
    ? DEFAULT_RUNTIME_REPOSITORY
    : parseImageReference(value).repository;
  return `${repository}:${version}`;
}
