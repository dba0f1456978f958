import { buildOpenApiDocument, type OpenApiDocument, webErrorBody } from "@svc/common/openapi/index";
import { webOperations } from "./operations";

let built: OpenApiDocument | undefined;

/** The web's OpenAPI 3.1 document (`GET /api/openapi.json`, rendered at `/docs`), built once. */
export function webOpenApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument({
    title: "Agent platform web API",
    version: "1.0.0",
    description:
      "The dashboard's API. Errors: `{error, code}` (the runtime routes pass the backend's " +
      "`{error: code, message}` through). State-changing requests from another site are refused (403).",
    errorBody: webErrorBody,
    operations: webOperations,
  });
  return built;
}
