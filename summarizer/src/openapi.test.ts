import { Validator } from "@seriousme/openapi-schema-validator";
import { createLogger } from "@svc/common";
import { expressRoutes } from "@svc/common/openapi/express-routes";
import { documentedRoutes } from "@svc/common/openapi/index";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createSummarizerApp } from "./app";
import { loadSummarizerConfig } from "./config";
import { summarizerOpenApiDocument } from "./openapi";

const summarizer = createSummarizerApp({
  config: loadSummarizerConfig({}),
  logger: createLogger("summarizer-openapi-test", "silent"),
});
afterAll(() => summarizer.close());

describe("summarizer OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(
      summarizerOpenApiDocument() as unknown as Record<string, unknown>,
    );
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes exactly the routes the app serves", () => {
    const { routes, mounts } = expressRoutes(summarizer.app);
    expect(routes).toContain("POST /api/summarize");
    expect(mounts).toEqual([]);
    expect(documentedRoutes(summarizerOpenApiDocument())).toEqual(routes);
  });

  it("is served at GET /openapi.json, with the request schema the routes validate with", async () => {
    const res = await request(summarizer.app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info).toMatchObject({ title: "web-summarizer", version: "1.0.0" });
    const body = res.body.paths["/api/summarize"].post.requestBody.content["application/json"].schema;
    expect(body).toMatchObject({
      type: "object",
      properties: { url: { type: "string", minLength: 1, maxLength: 8192 } },
      required: ["url"],
    });
    expect(res.body.paths["/api/extract"].post.responses["400"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/SummarizerError",
    });
    expect(res.body.components.schemas.SummarizerError).toMatchObject({ required: ["error"] });
  });
});
