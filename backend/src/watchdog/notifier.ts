/**
 * Watchdog notifications: degraded, crash loop and repair attempts go to a
 * chat bot (`POST {WATCHDOG_BOT_API_URL}/bot<WATCHDOG_BOT_TOKEN>/sendMessage` `{chat_id, text}`) when a token
 * and an admin chat id are set, and to a chat webhook (`POST {WATCHDOG_WEBHOOK_URL}` `{text, event, agentId,
 * state, at}`) when its URL is set. Both URLs come from configuration, not users, so they do not pass the
 * outbound URL guard. A channel that fails or takes longer than the timeout (5 s) is logged as a warning,
 * without the bot token, and never reaches the watchdog: `notify` never throws.
 */
import { createOutboundClient, OutboundError } from "@svc/common";
import type { Logger } from "pino";
import type { WatchdogNotificationEvent, WatchdogStateName } from "./state";

export interface WatchdogNotification {
  event: WatchdogNotificationEvent;
  agentId: string;
  agentName: string | null;
  /** The watchdog state after the event. */
  state: WatchdogStateName;
  at: Date;
  /** Extra words: the last observation, why a repair failed, the crash count. */
  detail?: string;
}

export interface WatchdogNotifier {
  /** Sends to every configured channel; resolves when each has answered, failed or timed out. */
  notify(notification: WatchdogNotification): Promise<void>;
  readonly channels: ReadonlyArray<"bot" | "webhook">;
}

export interface WatchdogNotifierOptions {
  botToken?: string;
  adminChatId?: string;
  botApiUrl?: string;
  webhookUrl?: string;
  timeoutMs?: number;
  logger: Logger;
}

export const NOTIFIER_TIMEOUT_MS = 5_000;

const HEADLINES: Record<WatchdogNotificationEvent, string> = {
  degraded: "is degraded",
  crash_loop: "is in a crash loop; automatic restarts stopped until an operator restarts it",
  repair_started: "repair started (kill gateway, restart, verify)",
  repair_succeeded: "repair succeeded; the agent is healthy again",
  repair_failed: "repair failed",
};

export function notificationText(n: WatchdogNotification): string {
  const who = n.agentName ? `${n.agentName} (${n.agentId})` : n.agentId;
  return `[watchdog] Agent ${who} ${HEADLINES[n.event]}${n.detail ? ` — ${n.detail}` : ""}`;
}

export function createWatchdogNotifier(options: WatchdogNotifierOptions): WatchdogNotifier {
  const timeoutMs = options.timeoutMs ?? NOTIFIER_TIMEOUT_MS;
  const { botToken, adminChatId, webhookUrl, logger } = options;
  const botApiUrl = (options.botApiUrl ?? "https://api.telegram.org").replace(/\/+$/, "");
  const botEnabled = Boolean(botToken && adminChatId);
  const channels: Array<"bot" | "webhook"> = [];
  if (botEnabled) channels.push("bot");
  if (webhookUrl) channels.push("webhook");

  /** Error text with the bot token cut out (it is part of the bot URL, which errors may quote). */
  const scrub = (text: string) => (botToken ? text.split(botToken).join("[redacted]") : text);

  const client = createOutboundClient({ name: "the notification channel", timeoutMs });

  async function post(channel: "bot" | "webhook", url: string, body: unknown, n: WatchdogNotification) {
    try {
      const res = await client.open({ method: "POST", url, json: body });
      res.discard();
      if (res.status < 200 || res.status > 299) {
        logger.warn(
          { channel, httpStatus: res.status, event: n.event, agentId: n.agentId },
          "watchdog notification refused",
        );
      }
    } catch (err) {
      const reason =
        err instanceof OutboundError && err.reason === "timeout"
          ? `timed out after ${timeoutMs} ms`
          : scrub(describe(err));
      logger.warn({ channel, reason, event: n.event, agentId: n.agentId }, "watchdog notification failed");
    }
  }

  return {
    channels,
    async notify(n) {
      const text = notificationText(n);
      const sends: Promise<void>[] = [];
      if (botEnabled) {
        sends.push(post("bot", `${botApiUrl}/bot${botToken}/sendMessage`, { chat_id: adminChatId, text }, n));
      }
      if (webhookUrl) {
        sends.push(
          post(
            "webhook",
            webhookUrl,
            { text, event: n.event, agentId: n.agentId, state: n.state, at: n.at.toISOString() },
            n,
          ),
        );
      }
      await Promise.all(sends);
    },
  };
}

function describe(err: unknown): string {
  if (err instanceof OutboundError) return err.socketCode ?? err.detail;
  return err instanceof Error ? err.message : String(err);
}
