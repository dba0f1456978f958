/** Watchdog notifications against loopback fakes of the chat-bot API and a chat webhook. */
import { freePort } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createWatchdogNotifier, notificationText, type WatchdogNotification } from "./notifier";
import { memoryLogger } from "./testing/fixtures";

const TOKEN = "123456:bot-secret-token";
const servers: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(handler: Parameters<typeof startFakeUpstream>[0]): Promise<FakeUpstream> {
  const server = await startFakeUpstream(handler);
  servers.push(server);
  return server;
}

const NOTE: WatchdogNotification = {
  event: "degraded",
  agentId: "agt_n1",
  agentName: "Research bot",
  state: "degraded",
  at: new Date("2026-03-01T10:02:00.000Z"),
  detail: "last probe: unreachable",
};

describe("watchdog notifier", () => {
  it("posts {chat_id, text} to {botApi}/bot<token>/sendMessage and {text, event, agentId, state, at} to the webhook", async () => {
    const bot = await fake((_req, res) => sendJson(res, 200, { ok: true, result: {} }));
    const hook = await fake((_req, res) => sendJson(res, 200, { ok: true }));
    const { logger, lines } = memoryLogger();
    const notifier = createWatchdogNotifier({
      botToken: TOKEN,
      adminChatId: "-100777",
      botApiUrl: `${bot.url}/`,
      webhookUrl: `${hook.url}/hooks/watchdog`,
      logger,
    });
    expect(notifier.channels).toEqual(["bot", "webhook"]);
    await notifier.notify(NOTE);
    const text = "[watchdog] Agent Research bot (agt_n1) is degraded — last probe: unreachable";
    expect(notificationText(NOTE)).toBe(text);

    expect(bot.requests).toHaveLength(1);
    expect(bot.requests[0]).toMatchObject({ method: "POST", path: `/bot${TOKEN}/sendMessage` });
    expect(bot.requests[0].headers["content-type"]).toBe("application/json");
    expect(JSON.parse(bot.requests[0].body.toString())).toEqual({ chat_id: "-100777", text });

    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]).toMatchObject({ method: "POST", path: "/hooks/watchdog" });
    expect(JSON.parse(hook.requests[0].body.toString())).toEqual({
      text,
      event: "degraded",
      agentId: "agt_n1",
      state: "degraded",
      at: "2026-03-01T10:02:00.000Z",
    });
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
  });

  it("has a text for every event", () => {
    const texts = (
      ["degraded", "crash_loop", "repair_started", "repair_succeeded", "repair_failed"] as const
    ).map((event) => notificationText({ ...NOTE, event, agentName: null, detail: undefined }));
    expect(texts).toEqual([
      "[watchdog] Agent agt_n1 is degraded",
      "[watchdog] Agent agt_n1 is in a crash loop; automatic restarts stopped until an operator restarts it",
      "[watchdog] Agent agt_n1 repair started (kill gateway, restart, verify)",
      "[watchdog] Agent agt_n1 repair succeeded; the agent is healthy again",
      "[watchdog] Agent agt_n1 repair failed",
    ]);
  });

  it("uses the bot only with both a token and an admin chat id, the webhook only with its URL", async () => {
    const bot = await fake((_req, res) => sendJson(res, 200, { ok: true }));
    const { logger } = memoryLogger();
    const noChat = createWatchdogNotifier({ botToken: TOKEN, botApiUrl: bot.url, logger });
    const noToken = createWatchdogNotifier({ adminChatId: "1", botApiUrl: bot.url, logger });
    expect(noChat.channels).toEqual([]);
    expect(noToken.channels).toEqual([]);
    await noChat.notify(NOTE);
    await noToken.notify(NOTE);
    expect(bot.requests).toHaveLength(0);
  });

  it("a refusing, hanging or unreachable channel is a warning without the token; notify still resolves", async () => {
    const refusing = await fake((_req, res) => sendJson(res, 500, { ok: false }));
    const hanging = await fake(() => undefined);
    const closedPort = await freePort();
    const { logger, lines, raw } = memoryLogger();

    await createWatchdogNotifier({
      botToken: TOKEN,
      adminChatId: "1",
      botApiUrl: refusing.url,
      logger,
    }).notify(NOTE);
    await createWatchdogNotifier({ webhookUrl: hanging.url, timeoutMs: 100, logger }).notify(NOTE);
    await createWatchdogNotifier({
      botToken: TOKEN,
      adminChatId: "1",
      botApiUrl: `http://127.0.0.1:${closedPort}`,
      logger,
    }).notify(NOTE);

    expect(refusing.requests).toHaveLength(1);
    expect(hanging.requests).toHaveLength(1);
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(3);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ channel: "bot", httpStatus: 500, msg: "watchdog notification refused" }),
        expect.objectContaining({ channel: "webhook", reason: "timed out after 100 ms" }),
        expect.objectContaining({
          channel: "bot",
          reason: "ECONNREFUSED",
          msg: "watchdog notification failed",
        }),
      ]),
    );
    expect(raw.join("")).not.toContain(TOKEN);
    expect(raw.join("")).not.toContain("bot-secret");
  });
});
