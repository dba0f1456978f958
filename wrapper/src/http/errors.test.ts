import { HttpError } from "@svc/common";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { jsonBody } from "./body";
import { wrapperErrorMapper } from "./errors";

function appWith(handler: express.RequestHandler) {
  const app = express();
  app.post("/thing", jsonBody({ limit: "64b" }), handler);
  app.post("/config", jsonBody({ limit: "64b", tooLargeMessage: "configuration too large" }), handler);
  app.use(wrapperErrorMapper());
  return app;
}

describe("the wrapper's one error mapper and body parser", () => {
  it("answers a thrown HttpError with its status and {ok: false, error}", async () => {
    const app = appWith(() => {
      throw new HttpError(409, "busy", "the gateway is busy");
    });
    const res = await request(app).post("/thing").send({ a: 1 });
    expect(res.status).toBe(409);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.body).toEqual({ ok: false, error: "the gateway is busy" });
  });

  it("answers an HttpError rejected by an async handler the same way", async () => {
    const app = appWith(async () => {
      await Promise.resolve();
      throw new HttpError(404, "not_found", "nothing here");
    });
    const res = await request(app).post("/thing").send({});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, error: "nothing here" });
  });

  it("answers bad JSON with 400 and an oversize body with 413, in the wrapper's shape", async () => {
    const app = appWith((_req, res) => {
      res.json({ ok: true });
    });
    const bad = await request(app).post("/thing").set("content-type", "application/json").send("{nope");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ok: false, error: "body is not valid JSON" });
    const big = { text: "x".repeat(200) };
    const large = await request(app).post("/thing").send(big);
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ ok: false, error: "body too large" });
    const largeConfig = await request(app).post("/config").send(big);
    expect(largeConfig.status).toBe(413);
    expect(largeConfig.body).toEqual({ ok: false, error: "configuration too large" });
  });

  it("answers an unexpected error with a generic 500 that carries no detail", async () => {
    const app = appWith(() => {
      throw new Error("secret detail /etc/passwd");
    });
    const res = await request(app).post("/thing").send({});
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ ok: false, error: "internal error" });
  });
});
