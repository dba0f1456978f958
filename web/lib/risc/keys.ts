import type { Clock } from "@svc/common";
import type { JSONWebKeySet } from "jose";
import { fetchRiscSigningKeys } from "../idp/client";

/** How long the provider's signing keys are cached (24 hours). */
export const SIGNING_KEY_CACHE_MS = 24 * 60 * 60 * 1000;
/**
 * A `kid` missing from a cached set older than this triggers one early refetch, so a key rotation at the
 * provider is picked up within minutes, while random `kid`s cannot make us hammer the provider.
 */
export const UNKNOWN_KID_REFETCH_MS = 5 * 60 * 1000;

type Fetcher = (issuer: string) => Promise<JSONWebKeySet>;

interface Entry {
  issuer: string;
  keys: JSONWebKeySet;
  fetchedAt: number;
}

/**
 * The provider's security-event signing keys, cached in memory for 24 hours by the injected clock (the
 * RISC configuration document is fetched again with them). Concurrent misses share one fetch.
 */
export class SigningKeyCache {
  private entry: Entry | undefined;
  private pending: Promise<Entry> | undefined;

  constructor(private readonly fetchKeys: Fetcher = fetchRiscSigningKeys) {}

  /** The key set to verify a token with `kid` against. */
  async keysFor(deps: { clock: Clock }, issuer: string, kid: string): Promise<JSONWebKeySet> {
    const now = deps.clock.now().getTime();
    let entry = this.entry;
    if (!entry || entry.issuer !== issuer || now - entry.fetchedAt >= SIGNING_KEY_CACHE_MS) {
      entry = await this.refresh(deps, issuer);
    } else if (!hasKid(entry.keys, kid) && now - entry.fetchedAt >= UNKNOWN_KID_REFETCH_MS) {
      entry = await this.refresh(deps, issuer);
    }
    return entry.keys;
  }

  /** Forget the cached keys. */
  clear(): void {
    this.entry = undefined;
  }

  private refresh(deps: { clock: Clock }, issuer: string): Promise<Entry> {
    if (!this.pending) {
      this.pending = this.fetchKeys(issuer)
        .then((keys) => {
          this.entry = { issuer, keys, fetchedAt: deps.clock.now().getTime() };
          return this.entry;
        })
        .finally(() => {
          this.pending = undefined;
        });
    }
    return this.pending;
  }
}

export function hasKid(keys: JSONWebKeySet, kid: string): boolean {
  return keys.keys.some((key) => key.kid === kid);
}

/** The process's cache, used by POST /api/security/risc. */
export const riscSigningKeys = new SigningKeyCache();
