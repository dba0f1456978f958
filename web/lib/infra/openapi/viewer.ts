/**
 * `/docs`: Swagger UI (swagger-ui-dist) rendering `/api/openapi.json`, every file served from this app
 * (`/docs/assets/<file>`, read from the installed package), so the page needs no other origin.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import getAbsoluteFSPath from "swagger-ui-dist/absolute-path.js";

export const DOCS_ASSET_PREFIX = "/docs/assets/";
export const DOCS_DOCUMENT_URL = "/api/openapi.json";

/** The package's files the page uses, with their content types; nothing else is served. */
const PACKAGE_ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/** Starts the viewer (a file rather than an inline script, so the page works under a strict CSP). */
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(DOCS_DOCUMENT_URL)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
  });
});
`;

/** The page; its scripts carry `nonce`, this request's Content-Security-Policy nonce, when there is one. */
export function docsHtml(nonce: string | null = null): string {
  const asset = (name: string) => `${DOCS_ASSET_PREFIX}${name}`;
  const script = (name: string) =>
    `<script src="${asset(name)}"${nonce ? ` nonce="${escapeAttribute(nonce)}"` : ""}></script>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API description</title>
<link rel="stylesheet" href="${asset("swagger-ui.css")}">
<link rel="icon" type="image/png" href="${asset("favicon-32x32.png")}">
</head>
<body>
<div id="swagger-ui"></div>
${script("swagger-ui-bundle.js")}
${script("swagger-ui-standalone-preset.js")}
${script("init.js")}
</body>
</html>
`;
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One of the viewer's files, or null when `name` is not one of them. */
export async function docsAsset(
  name: string,
): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string } | null> {
  if (name === "init.js") {
    return { body: new TextEncoder().encode(INIT_SCRIPT), contentType: "text/javascript; charset=utf-8" };
  }
  const contentType = Object.hasOwn(PACKAGE_ASSETS, name) ? PACKAGE_ASSETS[name] : undefined;
  if (!contentType) return null;
  return { body: new Uint8Array(await readFile(join(getAbsoluteFSPath(), name))), contentType };
}
