import { agents, platformJobs } from "@svc/db/schema";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, headersFor, testApp, testDatabase } from "../testing";

const database = testDatabase();
const app = testApp({ env: { ADMIN_EMAILS: "root@example.com" } });

const adminHeaders = headersFor({ id: "usr_root", email: "ROOT@example.com" }, "admin");
const at = (iso: string) => new Date(iso);

// Three users created a day apart (oldest first), agents and jobs with known times; secrets in every
// column that holds one, so the tests can see they never leave.
beforeAll(async () => {
  for (const user of [
    {
      id: "usr_old",
      email: "old@example.com",
      name: "Old",
      referralCode: "OLD1",
      passwordHash: "$2b$10$secretsecretsecretsecretsecretsecretsecretsecretsecre",
      emailVerifiedAt: at("2026-01-01T10:00:00Z"),
      plan: "pro",
      paymentsSubscriptionId: "sub_old",
      createdAt: at("2026-01-01T00:00:00Z"),
    },
    {
      id: "usr_mid",
      email: "root@example.com",
      name: "Root",
      referralCode: "MID1",
      plan: "solo",
      createdAt: at("2026-01-02T00:00:00Z"),
    },
    {
      id: "usr_new",
      email: "new@example.com",
      name: "New",
      referralCode: "NEW1",
      isAdmin: true,
      plan: "team",
      createdAt: at("2026-01-03T00:00:00Z"),
    },
  ])
    await createUser(user);
  await database.db.insert(agents).values([
    {
      id: "agt_a",
      userId: "usr_old",
      name: "Alpha",
      status: "running",
      url: "http://alpha.internal:8080",
      gatewayTokenEncrypted: "v1.secret-gateway-token",
      plan: "pro",
      createdAt: at("2026-01-05T00:00:00Z"),
    },
    {
      id: "agt_b",
      userId: "usr_old",
      name: "Beta",
      status: "pending",
      plan: "pro",
      createdAt: at("2026-01-06T00:00:00Z"),
    },
    {
      id: "agt_c",
      userId: "usr_new",
      name: "Gamma",
      status: "stopped",
      url: "http://gamma.internal:8080",
      plan: "team",
      createdAt: at("2026-01-04T00:00:00Z"),
    },
  ]);
  await database.db.insert(platformJobs).values([
    {
      id: "job_1",
      userId: "usr_old",
      agentId: "agt_a",
      lane: "deploy",
      jobType: "provision_managed_runtime",
      status: "completed",
      payload: { userId: "usr_old", agentId: "agt_a", gatewayToken: "never-shown" },
      createdAt: at("2026-01-05T01:00:00Z"),
    },
    {
      id: "job_2",
      userId: "usr_old",
      agentId: "agt_a",
      lane: "runtime_exec",
      jobType: "gateway_chat_completion",
      status: "failed",
      error: "boom",
      createdAt: at("2026-01-07T00:00:00Z"),
    },
    {
      id: "job_3",
      userId: "usr_old",
      agentId: "agt_b",
      lane: "deploy",
      jobType: "provision_managed_runtime",
      status: "queued",
      createdAt: at("2026-01-06T01:00:00Z"),
    },
    {
      // A user's job without an agent: counts as the user's last job, belongs to no agent.
      id: "job_4",
      userId: "usr_mid",
      agentId: null,
      lane: "recovery",
      jobType: "runtime_sync",
      status: "running",
      createdAt: at("2026-01-02T05:00:00Z"),
    },
  ]);
});

const expectedUsers = [
  {
    id: "usr_new",
    email: "new@example.com",
    name: "New",
    plan: "team",
    isAdmin: true,
    emailVerified: false,
    createdAt: "2026-01-03T00:00:00.000Z",
    agentCount: 1,
    lastJob: null,
  },
  {
    id: "usr_mid",
    email: "root@example.com",
    name: "Root",
    plan: "solo",
    // In ADMIN_EMAILS but never verified: not an administrator.
    isAdmin: false,
    emailVerified: false,
    createdAt: "2026-01-02T00:00:00.000Z",
    agentCount: 0,
    lastJob: {
      id: "job_4",
      jobType: "runtime_sync",
      status: "running",
      createdAt: "2026-01-02T05:00:00.000Z",
    },
  },
  {
    id: "usr_old",
    email: "old@example.com",
    name: "Old",
    plan: "pro",
    isAdmin: false,
    emailVerified: true,
    createdAt: "2026-01-01T00:00:00.000Z",
    agentCount: 2,
    lastJob: {
      id: "job_2",
      jobType: "gateway_chat_completion",
      status: "failed",
      createdAt: "2026-01-07T00:00:00.000Z",
    },
  },
];

const expectedAgents = [
  {
    id: "agt_b",
    name: "Beta",
    status: "pending",
    url: null,
    owner: { id: "usr_old", email: "old@example.com" },
    plan: "pro",
    createdAt: "2026-01-06T00:00:00.000Z",
    lastJob: {
      id: "job_3",
      jobType: "provision_managed_runtime",
      status: "queued",
      createdAt: "2026-01-06T01:00:00.000Z",
    },
  },
  {
    id: "agt_a",
    name: "Alpha",
    status: "running",
    url: "http://alpha.internal:8080",
    owner: { id: "usr_old", email: "old@example.com" },
    plan: "pro",
    createdAt: "2026-01-05T00:00:00.000Z",
    lastJob: {
      id: "job_2",
      jobType: "gateway_chat_completion",
      status: "failed",
      createdAt: "2026-01-07T00:00:00.000Z",
    },
  },
  {
    id: "agt_c",
    name: "Gamma",
    status: "stopped",
    url: "http://gamma.internal:8080",
    owner: { id: "usr_new", email: "new@example.com" },
    plan: "team",
    createdAt: "2026-01-04T00:00:00.000Z",
    lastJob: null,
  },
];

function get(path: string, headers: Record<string, string> = adminHeaders) {
  return request(app).get(path).set(headers);
}

describe("GET /api/admin/users", () => {
  it("lists users newest first with agent count and last job, and no secrets", async () => {
    const res = await get("/api/admin/users");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: expectedUsers });
    for (const secret of ["$2b$", "sub_old", "passwordHash", "password"]) {
      expect(res.text).not.toContain(secret);
    }
  });

  it("pages with limit and offset", async () => {
    const first = await get("/api/admin/users?limit=2");
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ users: expectedUsers.slice(0, 2) });
    const second = await get("/api/admin/users?limit=2&offset=2");
    expect(second.body).toEqual({ users: expectedUsers.slice(2) });
    const past = await get("/api/admin/users?offset=3");
    expect(past.body).toEqual({ users: [] });
    const max = await get("/api/admin/users?limit=500&offset=0");
    expect(max.body).toEqual({ users: expectedUsers });
  });
});

describe("GET /api/admin/agents", () => {
  it("lists agents newest first with owner and last job, and no gateway token", async () => {
    const res = await get("/api/admin/agents");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agents: expectedAgents });
    for (const secret of ["secret-gateway-token", "gatewayToken", "never-shown"]) {
      expect(res.text).not.toContain(secret);
    }
  });

  it("pages with limit and offset", async () => {
    const res = await get("/api/admin/agents?limit=1&offset=1");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agents: [expectedAgents[1]] });
  });
});

describe.each(["/api/admin/users", "/api/admin/agents"])("%s guards and validation", (path) => {
  it("400 naming the parameter for a bad limit or offset", async () => {
    const limitMessage = "limit: must be a whole number from 1 to 500";
    const offsetMessage = "offset: must be a whole number from 0 to 2147483647";
    const cases: Array<[string, string]> = [
      ["limit=0", limitMessage],
      ["limit=501", limitMessage],
      ["limit=abc", limitMessage],
      ["limit=-1", limitMessage],
      ["limit=1.5", limitMessage],
      ["limit=", limitMessage],
      ["limit=1&limit=2", limitMessage],
      ["limit=99999999999", limitMessage],
      ["offset=-1", offsetMessage],
      ["offset=x", offsetMessage],
      ["offset=2147483648", offsetMessage],
    ];
    for (const [query, message] of cases) {
      const res = await get(`${path}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message });
    }
    const unknown = await get(`${path}?page=2`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: "invalid_request", message: expect.stringContaining("page") });
  });

  it("401 without the internal key, 401 without a signed context, 403 for a non-admin", async () => {
    const noKey = await get(path, { ...adminHeaders, authorization: "" });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error).toBe("unauthorized");

    const unsigned = await get(path, headersFor("internal"));
    expect(unsigned.status).toBe(401);
    expect(unsigned.body).toEqual({
      error: "SIGNATURE_REQUIRED",
      message: "x-user-signature header is required",
    });

    const notAdmin = await get(path, headersFor({ id: "usr_new", email: "new@example.com" }, "admin"));
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body).toEqual({
      error: "ADMIN_REQUIRED",
      message: "an administrator account is required",
    });
  });
});
