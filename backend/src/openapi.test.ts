import { Validator } from "@seriousme/openapi-schema-validator";
import { createLogger } from "@svc/common";
import { expressRoutes } from "@svc/common/openapi/express-routes";
import { documentedRoutes } from "@svc/common/openapi/index";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { backendOpenApiDocument } from "./openapi";
import { createPermissionBus } from "./permissions/bus";
import { PROXY_PREFIX } from "./runtime/proxy";
import { DATA_ENCRYPTION_KEY, testApp, testConfig } from "./testing";

const logger = createLogger("openapi-test", "silent");
const config = testConfig({ DATA_ENCRYPTION_KEY });
// Never started: the app only needs it to mount the permission routes (nothing here subscribes).
const bus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
const app = testApp({ config, logger, permissionBus: bus });

const { routes, mounts } = expressRoutes(app);
const documented = documentedRoutes(backendOpenApiDocument());

/** Served outside Express: the classify hook's fast listener (server.ts, ahead of the app) and upgrades. */
const outsideExpress = [
  "POST /api/hooks/classify",
  "GET /ws/permissions",
  `GET ${PROXY_PREFIX}/{agentId}/{path}`,
];

describe("backend OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(backendOpenApiDocument() as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes every route of the app, and the routes served ahead of Express", () => {
    expect(routes.length).toBeGreaterThan(30);
    const missing = [...new Set([...routes, ...outsideExpress])].filter((r) => !documented.includes(r));
    expect(missing).toEqual([]);
  });

  it("describes the requests served by path-mounted middleware (the runtime proxy)", () => {
    expect(mounts).toContain(`${PROXY_PREFIX}/{agentId}`);
    const unserved = mounts.filter(
      (mount) => !documented.some((r) => r.split(" ")[1].startsWith(`${mount}/`)),
    );
    expect(unserved).toEqual([]);
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      expect(documented).toContain(`${method} ${PROXY_PREFIX}/{agentId}/{path}`);
    }
  });

  it("names no route that does not exist", () => {
    const served = new Set([...routes, ...outsideExpress]);
    const proxy = `${PROXY_PREFIX}/{agentId}/{path}`;
    const ghosts = documented.filter((r) => !served.has(r) && !r.endsWith(` ${proxy}`));
    expect(ghosts).toEqual([]);
  });

  it("is served at GET /openapi.json", async () => {
    const res = await request(app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body).toEqual(JSON.parse(JSON.stringify(backendOpenApiDocument())));
    expect(Object.keys(res.body.components.securitySchemes)).toEqual(
      expect.arrayContaining(["internalKey", "gatewayToken", "apiKey", "session"]),
    );
    expect(
      res.body.paths["/api/platform-jobs/provision"].post.requestBody.content["application/json"].schema,
    ).toMatchObject({ type: "object", required: expect.arrayContaining(["userId", "email", "agentId"]) });
  });
});
