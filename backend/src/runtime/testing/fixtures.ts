/** Users, agents and signed request headers for the runtime tests (each file has its own database). */
import { newId, sealGatewayToken, userContextHeaders, wrapperAdminPassword } from "@svc/common";
import type { Database } from "@svc/db";
import { type Agent, agents, users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { agentServiceName } from "../../hosting/types";
import type { FakePlatform, FakeService } from "./fake-platform";

export const INTERNAL_API_KEY = "runtime-internal-key-0123456789abcdef";
export const HMAC_SECRET = "runtime-hmac-secret-0123456789abcdef";
export const DATA_KEY = "ab".repeat(32);
export const ADMIN_EMAIL = "ops@example.com";

export interface TestUser {
  id: string;
  email: string;
}

export async function createUser(
  db: Database,
  fields: { email?: string; plan?: string } = {},
): Promise<TestUser> {
  const id = newId("usr");
  const email = fields.email ?? `${id}@example.com`;
  await db.insert(users).values({
    id,
    email,
    name: "Runtime user",
    referralCode: id.slice(4, 16),
    plan: fields.plan ?? "solo",
  });
  return { id, email };
}

/** The web's headers for `user`: internal key + signed user context. */
export function headersFor(user: TestUser, role = "user"): Record<string, string> {
  return {
    authorization: `Bearer ${INTERNAL_API_KEY}`,
    ...userContextHeaders(HMAC_SECRET, { userId: user.id, userEmail: user.email, userRole: role }),
  };
}

export interface SeededAgent {
  agent: Agent;
  token: string | null;
  service: FakeService | null;
}

/**
 * An agent of `owner`, with a running service on `platform` (unless `service: false`) whose environment
 * carries its token and the admin password derived from it, and the token stored encrypted (unless
 * `token: null`).
 */
export async function seedAgent(
  db: Database,
  platform: FakePlatform,
  owner: TestUser,
  options: { token?: string | null; service?: boolean; persistServiceId?: boolean; url?: string | null } = {},
): Promise<SeededAgent> {
  const id = newId("agt");
  const token = options.token === undefined ? "a1".repeat(32) : options.token;
  const service =
    options.service === false
      ? null
      : await platform.seed(agentServiceName(id), {
          env: token
            ? {
                OPENCLAW_GATEWAY_TOKEN: token,
                WRAPPER_ADMIN_PASSWORD: wrapperAdminPassword(DATA_KEY, id, token),
              }
            : {},
        });
  const [agent] = await db
    .insert(agents)
    .values({
      id,
      userId: owner.id,
      name: "Runner",
      runtimeServiceId: options.persistServiceId === false ? null : (service?.service.id ?? null),
      url: options.url === undefined ? (service?.agent.url ?? null) : options.url,
      gatewayTokenEncrypted: token ? sealGatewayToken(DATA_KEY, token) : null,
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      version: "2026.4.11",
      status: "running",
    })
    .returning();
  return { agent, token, service };
}

export async function readAgent(db: Database, id: string): Promise<Agent> {
  const rows = await db.select().from(agents).where(eq(agents.id, id));
  if (!rows[0]) throw new Error(`no agent ${id}`);
  return rows[0];
}
