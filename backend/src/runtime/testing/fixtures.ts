/** Agents of the runtime tests (users, keys and headers: backend/src/testing), on the file's database. */
import { newId, sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { type Agent, agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { agentServiceName } from "../../hosting/types";
import { DATA_ENCRYPTION_KEY, type TestUser, testDatabase } from "../../testing";
import type { FakePlatform, FakeService } from "./fake-platform";

export const ADMIN_EMAIL = "ops@example.com";

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
                WRAPPER_ADMIN_PASSWORD: wrapperAdminPassword(DATA_ENCRYPTION_KEY, id, token),
              }
            : {},
        });
  const [agent] = await testDatabase()
    .db.insert(agents)
    .values({
      id,
      userId: owner.id,
      name: "Runner",
      runtimeServiceId: options.persistServiceId === false ? null : (service?.service.id ?? null),
      url: options.url === undefined ? (service?.agent.url ?? null) : options.url,
      gatewayTokenEncrypted: token ? sealGatewayToken(DATA_ENCRYPTION_KEY, token) : null,
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      version: "2026.4.11",
      status: "running",
    })
    .returning();
  return { agent, token, service };
}

export async function readAgent(id: string): Promise<Agent> {
  const rows = await testDatabase().db.select().from(agents).where(eq(agents.id, id));
  if (!rows[0]) throw new Error(`no agent ${id}`);
  return rows[0];
}
