/**
 * What an API key may reach (issue 26 item 8): the scopes chosen when it is created, each
 * `<area>:read` or `<area>:write` for one area of the API, or `all`. `<area>:write` also grants
 * `<area>:read`; `all` grants every area. No scope reaches the account, API key, passkey or password routes:
 * those take a signed-in session only. The web (its routes and Settings) and the backend (its permission
 * routes, which take a user's key directly) read keys with this one grammar. No imports: the Settings page
 * uses it in the browser too.
 */

/** The areas of the API a key can be given, in the dashboard's order. */
export const API_AREAS = [
  "agent",
  "chat",
  "approvals",
  "jobs",
  "tasks",
  "files",
  "skills",
  "persona",
  "board",
  "buddies",
  "chain",
  "wallets",
  "billing",
  "context",
] as const;

export type ApiArea = (typeof API_AREAS)[number];
export type ApiAccess = "read" | "write";
export type ApiScope = `${ApiArea}:${ApiAccess}` | "all";

/** Every scope a key can hold, `all` first. */
export const API_SCOPES: readonly ApiScope[] = [
  "all",
  ...API_AREAS.flatMap((area) => [`${area}:read` as const, `${area}:write` as const]),
];

/**
 * What keys made before scopes existed hold (the migration gives them this, and it is the column's default):
 * what they reached then — the board's claims and posts, and the permission decisions.
 */
export const LEGACY_API_KEY_SCOPES: readonly ApiScope[] = ["board:write", "approvals:write"];

export function isApiScope(value: string): value is ApiScope {
  return (API_SCOPES as readonly string[]).includes(value);
}

export function scopeName(area: ApiArea, access: ApiAccess): ApiScope {
  return `${area}:${access}`;
}

/** Whether scopes let a key do `access` in `area` (write implies read, `all` implies everything). */
export function grantsScope(scopes: readonly string[], area: ApiArea, access: ApiAccess): boolean {
  return (
    scopes.includes("all") ||
    scopes.includes(scopeName(area, "write")) ||
    (access === "read" && scopes.includes(scopeName(area, "read")))
  );
}

/**
 * The scopes as stored: `all` alone when given; else each area once, at its highest access, in the order of
 * API_AREAS.
 */
export function normalizeScopes(scopes: readonly ApiScope[]): ApiScope[] {
  if (scopes.includes("all")) return ["all"];
  return API_AREAS.flatMap((area): ApiScope[] => {
    if (scopes.includes(scopeName(area, "write"))) return [scopeName(area, "write")];
    return scopes.includes(scopeName(area, "read")) ? [scopeName(area, "read")] : [];
  });
}
