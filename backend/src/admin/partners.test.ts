import { partnerInquiries } from "@svc/db/schema";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { headersFor, testApp, testDatabase } from "../testing";

const database = testDatabase();
const app = testApp({ env: { ADMIN_EMAILS: "root@example.com" } });

const asUser = (userEmail: string) => headersFor({ id: "usr_x", email: userEmail }, "admin");

beforeAll(async () => {
  await database.db.insert(partnerInquiries).values([
    {
      id: "ptn_old",
      name: "Old",
      email: "old@corp.example",
      type: "general",
      message: "hello",
      ip: "192.0.2.1",
      createdAt: new Date("2026-01-01T00:00:00Z"),
    },
    {
      id: "ptn_new",
      name: "New",
      email: "new@corp.example",
      company: "Corp",
      website: "https://corp.example",
      type: "enterprise",
      message: "let us talk",
      fastTrack: true,
      ip: "192.0.2.2",
      createdAt: new Date("2026-01-02T00:00:00Z"),
    },
  ]);
});

describe("GET /api/admin/partners", () => {
  it("lists partner inquiries newest first for an admin, without the sender's IP", async () => {
    const res = await request(app).get("/api/admin/partners").set(asUser("ROOT@example.com"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      partners: [
        {
          id: "ptn_new",
          name: "New",
          email: "new@corp.example",
          company: "Corp",
          website: "https://corp.example",
          type: "enterprise",
          message: "let us talk",
          fastTrack: true,
          createdAt: "2026-01-02T00:00:00.000Z",
        },
        {
          id: "ptn_old",
          name: "Old",
          email: "old@corp.example",
          company: null,
          website: null,
          type: "general",
          message: "hello",
          fastTrack: false,
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      ],
    });
    const paged = await request(app)
      .get("/api/admin/partners?limit=1&offset=1")
      .set(asUser("root@example.com"));
    expect(paged.body.partners.map((p: { id: string }) => p.id)).toEqual(["ptn_old"]);
  });

  it("403 ADMIN_REQUIRED for a non-admin, 401 without the internal key", async () => {
    const notAdmin = await request(app).get("/api/admin/partners").set(asUser("someone@example.com"));
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.error).toBe("ADMIN_REQUIRED");
    const noKey = await request(app).get("/api/admin/partners");
    expect(noKey.status).toBe(401);
  });
});
