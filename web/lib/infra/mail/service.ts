import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { randomId } from "@svc/common";
import { ensurePrivateDir } from "@svc/common/file-modes";
import nodemailer from "nodemailer";
import type { WebContext } from "../context";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text`; values in it must already be escaped (escapeHtml). */
  html?: string;
}

/** Text made safe to place in HTML element content or a quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface SentMail {
  /** `smtp`, or `file` with the path written (local development, no SMTP_URL). */
  via: "smtp" | "file";
  path?: string;
}

let transport: { url: string; sender: nodemailer.Transporter } | undefined;

/** Sends mail through SMTP_URL; without it, writes the message to `<DATA_DIR>/mail/` and logs where. */
export async function sendMail(
  ctx: Pick<WebContext, "config" | "clock" | "logger">,
  mail: Mail,
): Promise<SentMail> {
  const { config } = ctx;
  if (config.SMTP_URL) {
    if (transport?.url !== config.SMTP_URL)
      transport = { url: config.SMTP_URL, sender: nodemailer.createTransport(config.SMTP_URL) };
    await transport.sender.sendMail({
      from: config.MAIL_FROM,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
    return { via: "smtp" };
  }
  const dir = resolve(config.DATA_DIR, "mail");
  // Mail holds sign-in links: the platform's alone (closed again if an older version left it open).
  await ensurePrivateDir(dir);
  const path = join(dir, `${ctx.clock.now().toISOString().replace(/[:.]/g, "-")}-${randomId(6)}.eml`);
  const message = [
    `From: ${config.MAIL_FROM}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    `Date: ${ctx.clock.now().toUTCString()}`,
    ...fileBody(mail),
  ].join("\r\n");
  await writeFile(path, message, { mode: 0o600 });
  ctx.logger.info(
    { to: mail.to, subject: mail.subject, path },
    "mail written to a file (SMTP_URL is not set)",
  );
  return { via: "file", path };
}

/** The body of a mail written to a file: the text alone, or text and HTML as multipart/alternative. */
function fileBody(mail: Mail): string[] {
  if (mail.html === undefined) return ["Content-Type: text/plain; charset=utf-8", "", mail.text, ""];
  const boundary = `alt-${randomId(16)}`;
  return [
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    mail.text,
    `--${boundary}`,
    "Content-Type: text/html; charset=utf-8",
    "",
    mail.html,
    `--${boundary}--`,
    "",
  ];
}
