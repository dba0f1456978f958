/**
 * Per-agent gateway tokens: 64 hex characters, stored encrypted with DATA_ENCRYPTION_KEY (the owner gets them
 * back), and a Bearer credential of the agent itself (`/api/ai/chat`, the runtime proxy's WebSocket). The
 * table holds only ciphertext, so this process keeps a map SHA-256(token) → agent id, built by decrypting
 * every stored token once. A hit is re-checked against the stored token at most once per `verifiedForMs`
 * (1 s): a token rotated by another process works for up to that second — the price of keeping the hot
 * paths (the classify hook, `/api/ai/chat`) free of a query per call. A miss rescans at most once per
 * `minScanIntervalMs`, so a stream of wrong tokens costs one scan per interval.
 */
import { randomBytes } from "node:crypto";
import { openGatewayToken, safeEqual, sealGatewayToken, sha256Hex, wrapperAdminPassword } from "@svc/common";
import type { Database } from "@svc/db";
import { agents } from "@svc/db/schema";
import { eq, isNotNull } from "drizzle-orm";
import { dataEncryptionKeyUnset } from "./errors";

/** A fresh per-user gateway token: 32 random bytes as 64 hex characters. */
export function generateGatewayToken(): string {
  return randomBytes(32).toString("hex");
}

/** The agent a presented gateway token belongs to. */
export interface TokenOwner {
  agentId: string;
  userId: string;
}

export interface GatewayTokenStoreOptions {
  /** Least time between two full scans caused by unknown tokens (default 5 s). */
  minScanIntervalMs?: number;
  /** How long a verified token is trusted before it is checked against the database again (default 1 s). */
  verifiedForMs?: number;
  now?: () => number;
}

export class GatewayTokenStore {
  private readonly byHash = new Map<string, string>();
  /** Tokens (by hash) checked against the stored token recently: owner and when it was checked. */
  private readonly verified = new Map<string, { owner: TokenOwner; at: number }>();
  private readonly verifiedForMs: number;
  private loaded = false;
  private lastScanAt = Number.NEGATIVE_INFINITY;
  private scanning: Promise<void> | null = null;
  private readonly minScanIntervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Database,
    private readonly dataEncryptionKey: string | undefined,
    options: GatewayTokenStoreOptions = {},
  ) {
    this.minScanIntervalMs = options.minScanIntervalMs ?? 5_000;
    this.verifiedForMs = options.verifiedForMs ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  /** Whether tokens can be stored and read (DATA_ENCRYPTION_KEY is set). */
  get usable(): boolean {
    return Boolean(this.dataEncryptionKey);
  }

  private key(): string {
    if (!this.dataEncryptionKey) {
      throw dataEncryptionKeyUnset();
    }
    return this.dataEncryptionKey;
  }

  /** The agent's token in clear, or null when it has none. */
  open(agent: { gatewayTokenEncrypted: string | null }): string | null {
    if (!agent.gatewayTokenEncrypted) return null;
    return openGatewayToken(this.key(), agent.gatewayTokenEncrypted);
  }

  /** The agent's wrapper admin password for its gateway token `token` (see `wrapperAdminPassword`). */
  adminPassword(agentId: string, token: string): string {
    return wrapperAdminPassword(this.key(), agentId, token);
  }

  /** Stores `token` (encrypted) as the agent's gateway token. */
  async write(agentId: string, token: string): Promise<void> {
    const sealed = sealGatewayToken(this.key(), token);
    await this.db.update(agents).set({ gatewayTokenEncrypted: sealed }).where(eq(agents.id, agentId));
    for (const [hash, id] of this.byHash) if (id === agentId) this.byHash.delete(hash);
    for (const [hash, entry] of this.verified)
      if (entry.owner.agentId === agentId) this.verified.delete(hash);
    this.byHash.set(sha256Hex(token), agentId);
  }

  /** The agent's token, generating and storing one when it has none. */
  async ensure(agent: { id: string; gatewayTokenEncrypted: string | null }): Promise<{
    token: string;
    generated: boolean;
  }> {
    const existing = this.open(agent);
    if (existing) return { token: existing, generated: false };
    const token = generateGatewayToken();
    await this.write(agent.id, token);
    return { token, generated: true };
  }

  /** Whether `token` is this agent's current gateway token (constant time). */
  matches(agent: { gatewayTokenEncrypted: string | null }, token: string): boolean {
    if (!this.dataEncryptionKey || !agent.gatewayTokenEncrypted) return false;
    try {
      return safeEqual(openGatewayToken(this.dataEncryptionKey, agent.gatewayTokenEncrypted), token);
    } catch {
      return false;
    }
  }

  /** The agent whose current gateway token is `token`, or null. */
  async findOwner(token: string): Promise<TokenOwner | null> {
    if (!this.dataEncryptionKey || token.length === 0) return null;
    const hash = sha256Hex(token);
    const recent = this.verified.get(hash);
    if (recent && this.now() - recent.at < this.verifiedForMs) return recent.owner;
    const cached = this.byHash.get(hash);
    if (cached) {
      const owner = await this.verify(cached, token, hash);
      if (owner) return owner;
      this.byHash.delete(hash);
    }
    if (!this.loaded || this.now() - this.lastScanAt >= this.minScanIntervalMs) {
      await this.scan();
      const found = this.byHash.get(hash);
      if (found) return this.verify(found, token, hash);
    }
    return null;
  }

  private async verify(agentId: string, token: string, hash: string): Promise<TokenOwner | null> {
    this.verified.delete(hash);
    const rows = await this.db
      .select({ id: agents.id, userId: agents.userId, gatewayTokenEncrypted: agents.gatewayTokenEncrypted })
      .from(agents)
      .where(eq(agents.id, agentId))
      .limit(1);
    const agent = rows[0];
    if (!agent || !this.matches(agent, token)) return null;
    const owner = { agentId: agent.id, userId: agent.userId };
    this.verified.set(hash, { owner, at: this.now() });
    return owner;
  }

  /** Rebuilds the hash map from every stored token; concurrent callers share one scan. */
  private scan(): Promise<void> {
    this.scanning ??= (async () => {
      try {
        const key = this.key();
        const rows = await this.db
          .select({ id: agents.id, sealed: agents.gatewayTokenEncrypted })
          .from(agents)
          .where(isNotNull(agents.gatewayTokenEncrypted));
        const next = new Map<string, string>();
        for (const row of rows) {
          try {
            next.set(sha256Hex(openGatewayToken(key, row.sealed as string)), row.id);
          } catch {
            // Sealed with another key or corrupt: it can authenticate nobody.
          }
        }
        this.byHash.clear();
        for (const [hash, id] of next) this.byHash.set(hash, id);
        this.loaded = true;
        this.lastScanAt = this.now();
      } finally {
        this.scanning = null;
      }
    })();
    return this.scanning;
  }
}

const stores = new WeakMap<Database, Map<string, GatewayTokenStore>>();

/**
 * The process-wide token store of a database and key: routes, job processors and `/api/ai/chat` share it,
 * so a token written by one is known to the others without a scan.
 */
export function gatewayTokenStore(db: Database, dataEncryptionKey: string | undefined): GatewayTokenStore {
  let byKey = stores.get(db);
  if (!byKey) {
    byKey = new Map();
    stores.set(db, byKey);
  }
  const name = dataEncryptionKey ? sha256Hex(dataEncryptionKey) : "";
  let store = byKey.get(name);
  if (!store) {
    store = new GatewayTokenStore(db, dataEncryptionKey);
    byKey.set(name, store);
  }
  return store;
}
