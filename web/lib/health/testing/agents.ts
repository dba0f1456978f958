/** Tests only: agents rows for a user, with a wrapper URL and a sealed gateway token. */
import { randomBytes } from "node:crypto";
import { sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { agents } from "@svc/db/schema";
import { webContext } from "../../infra/testing";

export const TEST_DATA_ENCRYPTION_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

/**
 * An agents row of `userId`. With `fake` (the fake agent answering at `url`), the fake is made this agent's:
 * it proves the identity of this agent's wrapper (its admin password), as the platform requires before it
 * sends the token.
 */
export async function deployTestAgent(
  userId: string,
  options: {
    url: string | null;
    token?: string | null;
    createdAt?: Date;
    name?: string;
    fake?: { adminPassword: string };
  },
) {
  const token = options.token ?? null;
  const [agent] = await webContext()
    .db.insert(agents)
    .values({
      id: `agt_${randomBytes(8).toString("hex")}`,
      userId,
      name: options.name ?? "Scout",
      url: options.url,
      gatewayTokenEncrypted: token === null ? null : sealGatewayToken(TEST_DATA_ENCRYPTION_KEY, token),
      status: "running",
      ...(options.createdAt ? { createdAt: options.createdAt } : {}),
    })
    .returning();
  if (options.fake && token !== null)
    options.fake.adminPassword = wrapperAdminPassword(TEST_DATA_ENCRYPTION_KEY, agent.id, token);
  return agent;
}
