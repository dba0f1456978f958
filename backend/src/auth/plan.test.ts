import { createLogger, newId, signUserContext, userContextHeaders } from "@svc/common";
import { connectDatabase, type DatabaseHandle } from "@svc/db";
import { users } from "@svc/db/schema";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorMapper } from "../http/errors";
import { createUser, HMAC_SECRET as SECRET, testDatabase } from "../testing";
import { isDatabaseUnavailable, requireMatchingPlan, verifiedPlanOf } from "./plan";
import { verifyUserContext } from "./user-context";

const logger = createLogger("backend-test", "silent");
const database = testDatabase();
// Nothing listens on port 1: every query fails with a connection error.
const down = connectDatabase("postgres://x:y@127.0.0.1:1/none");
afterAll(() => down.close());

/** The middleware after the user context, answering with the plan it verified. */
function probeApp(handle: DatabaseHandle) {
  const app = express();
  app.get(
    "/probe",
    verifyUserContext({ secret: SECRET, required: true }),
    requireMatchingPlan(handle.db),
    (_req, res) => {
      res.json(verifiedPlanOf(res));
    },
  );
  app.use(errorMapper(logger));
  return app;
}
const app = probeApp(database);

async function insertUser(plan: string, paymentsSubscriptionId: string | null) {
  return (await createUser({ name: "subscriber", plan, paymentsSubscriptionId })).id;
}

function probe(userId: string, headers: Record<string, string>, on = app) {
  return request(on)
    .get("/probe")
    .set({
      ...userContextHeaders(SECRET, { userId, userEmail: `${userId}@example.com`, userRole: "user" }),
      ...headers,
    });
}

function mismatch(message: string) {
  return { error: "SUBSCRIPTION_MISMATCH", message };
}

let pro: string;
let solo: string;
beforeAll(async () => {
  pro = await insertUser("pro", "sub_pro_123");
  solo = await insertUser("solo", null);
});

describe("requireMatchingPlan with the database", () => {
  it("passes when plan and subscription match the user record", async () => {
    const res = await probe(pro, { "x-user-plan": "pro", "x-payments-subscription-id": "sub_pro_123" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ plan: "pro", paymentsSubscriptionId: "sub_pro_123", verifiedBy: "database" });

    const headerSets: Array<Record<string, string>> = [
      { "x-user-plan": "solo" },
      { "x-user-plan": "solo", "x-payments-subscription-id": "" },
    ];
    for (const headers of headerSets) {
      const free = await probe(solo, headers);
      expect(free.status).toBe(200);
      expect(free.body).toEqual({ plan: "solo", paymentsSubscriptionId: null, verifiedBy: "database" });
    }
  });

  it("402 when the plan differs", async () => {
    for (const plan of ["enterprise", "Pro", "solo"]) {
      const res = await probe(pro, { "x-user-plan": plan, "x-payments-subscription-id": "sub_pro_123" });
      expect(res.status, plan).toBe(402);
      expect(res.body).toEqual(mismatch("x-user-plan does not match the account's plan"));
    }
  });

  it("402 when the subscription differs, is missing, or is claimed for an account without one", async () => {
    const message = "x-payments-subscription-id does not match the account's subscription";
    const cases: Array<[string, Record<string, string>]> = [
      [pro, { "x-user-plan": "pro", "x-payments-subscription-id": "sub_other" }],
      [pro, { "x-user-plan": "pro", "x-payments-subscription-id": "sub_pro_12" }],
      [pro, { "x-user-plan": "pro" }],
      [solo, { "x-user-plan": "solo", "x-payments-subscription-id": "sub_pro_123" }],
    ];
    for (const [userId, headers] of cases) {
      const res = await probe(userId, headers);
      expect(res.status).toBe(402);
      expect(res.body).toEqual(mismatch(message));
    }
  });

  it("402 for an unknown user, and for the anonymous default", async () => {
    const res = await probe("usr_nobody", {
      "x-user-plan": "pro",
      "x-payments-subscription-id": "sub_pro_123",
    });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(mismatch("no account matches the user context"));
    const anonymous = await request(app)
      .get("/probe")
      .set({
        "x-user-signature": signUserContext(SECRET, { userId: "anonymous", userEmail: "", userRole: "user" }),
        "x-user-plan": "solo",
      });
    expect(anonymous.status).toBe(402);
    expect(anonymous.body).toEqual(mismatch("no account matches the user context"));
  });

  it("402 without x-user-plan", async () => {
    const res = await probe(pro, { "x-payments-subscription-id": "sub_pro_123" });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(mismatch("x-user-plan header is required"));
  });

  it("the user is the signed one: a different x-user-id breaks the signature first", async () => {
    const res = await probe(solo, {
      "x-user-id": pro,
      "x-user-plan": "pro",
      "x-payments-subscription-id": "sub_pro_123",
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("INVALID_SIGNATURE");
  });
});

describe("requireMatchingPlan while the database cannot be reached", () => {
  const offline = probeApp(down);

  it("a request with x-user-plan passes on its headers alone", async () => {
    const res = await probe(
      "usr_nobody",
      { "x-user-plan": "pro", "x-payments-subscription-id": "sub_any" },
      offline,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ plan: "pro", paymentsSubscriptionId: "sub_any", verifiedBy: "headers" });
    const noSubscription = await probe("usr_nobody", { "x-user-plan": "solo" }, offline);
    expect(noSubscription.status).toBe(200);
    expect(noSubscription.body).toEqual({
      plan: "solo",
      paymentsSubscriptionId: null,
      verifiedBy: "headers",
    });
  });

  it("402 without x-user-plan", async () => {
    const res = await probe("usr_nobody", { "x-payments-subscription-id": "sub_any" }, offline);
    expect(res.status).toBe(402);
    expect(res.body).toEqual(mismatch("x-user-plan header is required"));
  });

  it("other database errors are not an outage: 500", async () => {
    const url = new URL(process.env.DATABASE_URL ?? "");
    url.pathname = `/missing_${newId("db").slice(3)}`;
    const missing = connectDatabase(url.toString());
    try {
      const res = await probe(
        pro,
        { "x-user-plan": "pro", "x-payments-subscription-id": "sub_pro_123" },
        probeApp(missing),
      );
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: "internal", message: "internal server error" });
    } finally {
      await missing.close();
    }
  });

  it("isDatabaseUnavailable recognizes the real connection failure, wrapped as drizzle wraps it", async () => {
    const err = await down.db
      .select()
      .from(users)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseUnavailable(new Error("syntax error"))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error("x"), { code: "42P01" }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error("x"), { code: "57P01" }))).toBe(true);
    expect(isDatabaseUnavailable("ECONNREFUSED")).toBe(false);
  });
});
