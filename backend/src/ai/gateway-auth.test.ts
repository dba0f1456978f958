/** `POST /api/ai/chat` with an agent's gateway token as Bearer (the path agents use). */
import { randomBytes } from "node:crypto";
import { newId, sealGatewayToken } from "@svc/common";
import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatewayTokenStore } from "../agents/tokens";
import { createUser, DATA_ENCRYPTION_KEY, headersFor, testApp, testDatabase } from "../testing";

const database = testDatabase();
const question = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Hi?" }] };

let fake: FakeAiProvider;
let agentId: string;
let token: string;

beforeAll(async () => {
  fake = await startFakeAiProvider({ apiKey: "provider-key-xyz" });
  const { id: userId } = await createUser({
    name: "agent owner",
    plan: "pro",
    paymentsSubscriptionId: "sub_9",
  });
  token = randomBytes(32).toString("hex");
  agentId = newId("agt");
  await database.db.insert(agents).values({
    id: agentId,
    userId,
    name: "Chatty",
    gatewayTokenEncrypted: sealGatewayToken(DATA_ENCRYPTION_KEY, token),
  });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function app(env: Record<string, string | undefined> = {}) {
  return testApp({
    env: { DATA_ENCRYPTION_KEY, AI_PROVIDER_URL: fake.url, AI_PROVIDER_KEY: fake.apiKey, ...env },
  });
}

describe("POST /api/ai/chat with a gateway token", () => {
  it("the agent's token alone is enough: no user context, no plan headers", async () => {
    fake.setReply("Hello, agent.");
    const res = await request(app())
      .post("/api/ai/chat")
      .set("authorization", `Bearer ${token}`)
      .send(question);
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe("Hello, agent.");
    const forwarded = fake.requests.at(-1);
    expect(forwarded?.headers.authorization).toBe("Bearer provider-key-xyz");
    expect(JSON.stringify(forwarded?.headers)).not.toContain(token);
  });

  it("streams too", async () => {
    fake.setReply("a b");
    const res = await request(app())
      .post("/api/ai/chat")
      .set("authorization", `Bearer ${token}`)
      .send({ ...question, stream: true })
      .buffer(true)
      .parse((r, done) => {
        let text = "";
        r.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        r.on("end", () => done(null, text));
      });
    expect(res.status).toBe(200);
    expect(res.body as string).toContain("data: [DONE]");
  });

  it("an unknown or rotated token is 403 and never reaches the provider", async () => {
    const before = fake.requests.length;
    const wrong = await request(app())
      .post("/api/ai/chat")
      .set("authorization", `Bearer ${randomBytes(32).toString("hex")}`)
      .send(question);
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ error: "forbidden", message: "invalid internal API key" });

    const rotated = randomBytes(32).toString("hex");
    const server = app();
    await gatewayTokenStore(database.db, DATA_ENCRYPTION_KEY).write(agentId, rotated);
    expect(
      (await request(server).post("/api/ai/chat").set("authorization", `Bearer ${token}`).send(question))
        .status,
    ).toBe(403);
    expect(
      (await request(server).post("/api/ai/chat").set("authorization", `Bearer ${rotated}`).send(question))
        .status,
    ).toBe(200);
    token = rotated;
    expect(fake.requests.length).toBe(before + 1);
  });

  it("the plan comes from the account: headers the agent adds change nothing", async () => {
    const res = await request(app())
      .post("/api/ai/chat")
      .set({ authorization: `Bearer ${token}`, "x-user-plan": "enterprise", "x-user-id": "usr_someone_else" })
      .send(question);
    expect(res.status).toBe(200);
  });

  it("the web's path is unchanged: internal key + signed context + plan", async () => {
    const unsigned = await request(app()).post("/api/ai/chat").set(headersFor("internal")).send(question);
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error).toBe("SIGNATURE_REQUIRED");
    const none = await request(app()).post("/api/ai/chat").send(question);
    expect(none.status).toBe(401);
  });

  it("without DATA_ENCRYPTION_KEY gateway tokens are not accepted", async () => {
    const res = await request(app({ DATA_ENCRYPTION_KEY: undefined }))
      .post("/api/ai/chat")
      .set("authorization", `Bearer ${token}`)
      .send(question);
    expect(res.status).toBe(403);
    const [row] = await database.db.select().from(agents).where(eq(agents.id, agentId));
    expect(row.gatewayTokenEncrypted).not.toBeNull();
  });
});
