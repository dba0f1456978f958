/**
 * Deleting an account when an agent cannot be removed (issue 26 item 7): the backend is not reachable here
 * (no INTERNAL_API_KEY), so its agent stays, and so does the account — 502 naming the agent. The whole
 * deletion through the running servers is in ./deletion.running.test.ts.
 */
import { agents, users } from "@svc/db/schema";
import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE as DELETE_ACCOUNT } from "@/app/api/account/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";

useWebTestContext({ DATA_DIR: `/tmp/svc-deletion-test-${process.pid}` });

describe("DELETE /api/account when an agent cannot be removed", () => {
  it("502 agent_removal_failed naming the agent; the account, its session and the agent stay", async () => {
    const { user, jar } = await signedInUser();
    const db = webContext().db;
    await db
      .update(users)
      .set({ passwordHash: await bcrypt.hash("password-1", 4) })
      .where(eq(users.id, user.id));
    await db
      .insert(agents)
      .values({ id: "agt_kept", userId: user.id, name: "Scout", url: "http://127.0.0.1:9" });
    const res = await call(DELETE_ACCOUNT, {
      method: "DELETE",
      path: "/api/account",
      json: { password: "password-1" },
      jar,
    });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error:
        'your agent "Scout" could not be removed (INTERNAL_API_KEY is not configured); the account was not deleted: try again',
      code: "agent_removal_failed",
    });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await db.select({ id: users.id }).from(users).where(eq(users.id, user.id))).toHaveLength(1);
    expect(await db.select({ id: agents.id }).from(agents).where(eq(agents.id, "agt_kept"))).toHaveLength(1);
  });
});
