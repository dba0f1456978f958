/**
 * The dashboard's Files page in real headless Chromium against the built web app (local storage in its
 * DATA_DIR): upload with the agent chosen, see it listed with the quota used, download it, delete it after
 * the confirmation, and the 413 of an upload over FILE_MAX_BYTES shown in words.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import { agents, files } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { SESSION_COOKIE } from "../lib/sessions/service";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const MAX_BYTES = 64 * 1024;
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: { FILE_MAX_BYTES: String(MAX_BYTES), FILE_QUOTA_MB: "1" },
});

async function addAgent(userId: string, name: string) {
  const [agent] = await webContext()
    .db.insert(agents)
    .values({ id: `agt_${randomBytes(8).toString("hex")}`, userId, name })
    .returning();
  return agent;
}

describe("Files page", () => {
  it("uploads to the chosen agent, lists it with size, type, date and the quota, downloads and deletes it", async () => {
    const { page, user, context } = await stack.signIn();
    await addAgent(user.id, "Helper");
    const second = await addAgent(user.id, "Researcher");
    await page.goto("/dashboard/files");

    await expect
      .poll(() => page.getByTestId("files-table").textContent(), { timeout: 15_000 })
      .toContain("No files yet");
    expect(await page.getByTestId("files-quota").textContent()).toBe("0 B of 1 MB used");
    await expect(page.getByRole("link", { name: "Files" }).getAttribute("aria-current")).resolves.toBe(
      "page",
    );
    await expectAccessible(page);

    const content = Buffer.from("name,score\nada,3\n".repeat(600));
    await page.getByLabel("Agent").selectOption({ label: "Researcher" });
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "scores (final).csv",
      mimeType: "text/csv",
      buffer: content,
    });
    await page.getByRole("button", { name: "Upload" }).click();

    const status = page.getByTestId("files-status");
    await expect
      .poll(() => status.textContent(), { timeout: 15_000 })
      .toBe("Uploaded “scores__final_.csv” (10 KB).");
    const table = page.getByTestId("files-table");
    const row = table.getByRole("row", { name: /scores__final_\.csv/ });
    await expect.poll(() => row.count()).toBe(1);
    const rowText = await row.textContent();
    expect(rowText).toContain("Researcher");
    expect(rowText).toContain("10 KB");
    expect(rowText).toContain("text/csv");
    const [stored] = await webContext().db.select().from(files).where(eq(files.userId, user.id));
    expect(stored).toMatchObject({
      agentId: second.id,
      size: content.length,
      filename: "scores__final_.csv",
    });
    expect(await row.locator("time").getAttribute("datetime")).toBe(stored.createdAt.toISOString());
    await expect.poll(() => page.getByTestId("files-quota").textContent()).toBe("10 KB of 1 MB used");
    await expectAccessible(page);

    const downloading = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download scores__final_.csv" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("scores__final_.csv");
    expect((await readFile(await download.path())).equals(content)).toBe(true);

    await page.getByRole("button", { name: "Delete scores__final_.csv" }).click();
    const confirm = page.getByRole("group", { name: /Delete “scores__final_\.csv”\?/ });
    await expectAccessible(page);
    await confirm.getByRole("button", { name: "Delete file" }).click();
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe("Deleted “scores__final_.csv”.");
    await expect.poll(() => table.textContent()).toContain("No files yet");
    expect(await webContext().db.select().from(files).where(eq(files.userId, user.id))).toEqual([]);
    await expect.poll(() => page.getByTestId("files-quota").textContent()).toBe("0 B of 1 MB used");
    await context.close();
  }, 120_000);

  it("says in words why an upload over the size limit was refused, and keeps nothing", async () => {
    const { page, user, context } = await stack.signIn();
    await addAgent(user.id, "Helper");
    await page.goto("/dashboard/files");
    await hydrated(page.getByRole("button", { name: "Upload" }));
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "big.bin",
      mimeType: "application/octet-stream",
      buffer: randomBytes(MAX_BYTES + 1),
    });
    await page.getByRole("button", { name: "Upload" }).click();
    const alert = page.getByTestId("files-upload").getByRole("alert");
    await expect
      .poll(() => alert.textContent(), { timeout: 15_000 })
      .toBe("“big.bin” (65,537 bytes) is bigger than the per-file limit of 65,536 bytes.");
    expect(await webContext().db.select().from(files).where(eq(files.userId, user.id))).toEqual([]);
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("through the real server, an upload over the limit is answered 413 while the client is still sending", async () => {
    const { user, token, context } = await stack.signIn();
    const agent = await addAgent(user.id, "Helper");
    await context.close();
    const url = new URL(stack.web.url);
    const boundary = "----svc-e2e-boundary";
    const total = 64 * 1024 * 1024;
    let sent = 0;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port: Number(url.port),
        path: "/api/files",
        method: "POST",
        headers: {
          cookie: `${SESSION_COOKIE}=${token}`,
          origin: stack.web.url,
          "content-type": `multipart/form-data; boundary=${boundary}`,
        },
      });
      let answered = false;
      req.on("response", (res) => {
        answered = true;
        let body = "";
        res.on("data", (c: Buffer) => {
          body += c.toString();
        });
        res.on("end", () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on("error", (err) => {
        if (!answered) reject(err);
      });
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="agentId"\r\n\r\n${agent.id}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\n\r\n`,
      );
      const chunk = randomBytes(256 * 1024);
      const pump = () => {
        // The client keeps sending (no Content-Length: chunked) until the answer arrives, and never ends the
        // body: a server that read it whole before answering would not answer at all.
        while (!answered && sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "file_too_large", maxBytes: MAX_BYTES });
    // Answered while the body was still open: it streams to the route, it is not read whole first. (How much
    // the client got to send meanwhile depends on the machine's speed, so it is not asserted.)
    expect(sent).toBeGreaterThan(MAX_BYTES);
    expect(await webContext().db.select().from(files).where(eq(files.userId, user.id))).toEqual([]);
  });

  it("a user without an agent is sent to deploy one first", async () => {
    const { page, context } = await stack.signIn({ viewport: { width: 360, height: 740 } });
    await page.goto("/dashboard/files");
    const upload = page.getByTestId("files-upload");
    await expect.poll(() => upload.textContent(), { timeout: 15_000 }).toContain("No agent yet");
    expect(await upload.getByRole("link", { name: "Deploy your agent" }).getAttribute("href")).toBe(
      "/dashboard/agent",
    );
    expect(await page.getByRole("button", { name: "Upload" }).count()).toBe(0);
    await context.close();
  }, 60_000);
});
