/** Agents for dashboard e2e tests: a row of the user's, with a sealed gateway token and a runtime URL. */
import { randomBytes } from "node:crypto";
import { newId, sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { agents } from "@svc/db/schema";
import { expect } from "vitest";
import { webContext } from "../../lib/infra/testing";
import { E2E_DATA_ENCRYPTION_KEY } from "./dashboard";

/**
 * A running agent of the user's at `url`. With `fake` (the fake answering at `url`), the fake is made this
 * agent's: it proves the identity of this agent's wrapper (its admin password), as the platform requires
 * before it sends the token (the same rule as lib/health/testing/agents.ts).
 */
export async function seedAgent(
  userId: string,
  {
    url,
    token = randomBytes(32).toString("hex"),
    name = "Scout",
    fake,
  }: { url: string | null; token?: string; name?: string; fake?: { adminPassword: string } },
) {
  const id = newId("agt");
  await webContext()
    .db.insert(agents)
    .values({
      id,
      userId,
      name,
      url,
      gatewayTokenEncrypted: sealGatewayToken(E2E_DATA_ENCRYPTION_KEY, token),
      status: "running",
    });
  if (fake) fake.adminPassword = wrapperAdminPassword(E2E_DATA_ENCRYPTION_KEY, id, token);
  return { id, token };
}

/**
 * What the agent's pre-tool-use hook sends before running `command`. The
 * backend learns the tokens of agents created since its last look within 5 s: until then it answers 401.
 */
export async function classify(backendUrl: string, token: string, command: string) {
  let body: { allow?: boolean; tier?: string; requestId?: string } = {};
  await expect
    .poll(
      async () => {
        const res = await fetch(`${backendUrl}/api/hooks/classify`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ tool_name: "bash", tool_input: { command }, hook_event_name: "PreToolUse" }),
        });
        body = await res.json();
        return res.status;
      },
      { timeout: 15_000, interval: 250 },
    )
    .toBe(200);
  expect(body).toMatchObject({ allow: false, tier: "dangerous" });
  return body.requestId as string;
}
