import type { WebContext } from "../infra/context";
import { sendMail } from "../infra/mail/service";

/** The mails of the account's own actions (issue 26 item 7), each through SMTP_URL or the `.eml` folder. */

type Ctx = Pick<WebContext, "config" | "clock" | "logger">;

/** An address of the platform's own pages, from PUBLIC_URL. */
export function publicLink(ctx: Pick<WebContext, "config">, path: string): string {
  return `${ctx.config.PUBLIC_URL.replace(/\/$/, "")}${path}`;
}

const SIGN_OFF = "\n— Agent Platform\n";

export function mailPasswordResetLink(ctx: Ctx, to: { email: string; name: string }, token: string) {
  const link = publicLink(ctx, `/reset-password?token=${encodeURIComponent(token)}`);
  return sendMail(ctx, {
    to: to.email,
    subject: "Reset your Agent Platform password",
    text: `Hello ${to.name},\n\nSomeone (we hope you) asked to reset the password of this account. Choose a new password by opening this link within 1 hour; it works once:\n\n${link}\n\nSetting a new password signs out every session of the account.\n\nIf you did not ask for this, ignore this message: your password stays as it is.\n${SIGN_OFF}`,
  });
}

export function mailPasswordChanged(ctx: Ctx, to: { email: string; name: string }, how: "reset" | "changed") {
  return sendMail(ctx, {
    to: to.email,
    subject: "Your Agent Platform password was changed",
    text: `Hello ${to.name},\n\nThe password of your account was ${how === "reset" ? "reset through the link we mailed you" : "changed in Settings"}, and ${how === "reset" ? "every session was" : "every other session was"} signed out.\n\nIf this was not you, reset your password now: ${publicLink(ctx, "/forgot-password")}\n${SIGN_OFF}`,
  });
}

export function mailEmailChangeLink(ctx: Ctx, to: { newEmail: string; name: string }, token: string) {
  const link = publicLink(ctx, `/api/account/email/confirm?token=${encodeURIComponent(token)}`);
  return sendMail(ctx, {
    to: to.newEmail,
    subject: "Confirm your new email address for Agent Platform",
    text: `Hello ${to.name},\n\nConfirm that this address should become the email of your Agent Platform account by opening this link within 24 hours:\n\n${link}\n\nUntil you do, the account keeps its current address. If you did not ask for this, ignore this message.\n${SIGN_OFF}`,
  });
}

export function mailEmailChanged(ctx: Ctx, to: { oldEmail: string; name: string }, newEmail: string) {
  return sendMail(ctx, {
    to: to.oldEmail,
    subject: "The email of your Agent Platform account was changed",
    text: `Hello ${to.name},\n\nThe email address of your Agent Platform account is now ${newEmail}; this address (${to.oldEmail}) no longer signs in and gets no more mail from us.\n\nIf this was not you, write to the platform's operator at once.\n${SIGN_OFF}`,
  });
}

export function mailAccountDeleted(ctx: Ctx, to: { email: string; name: string }) {
  return sendMail(ctx, {
    to: to.email,
    subject: "Your Agent Platform account was deleted",
    text: `Hello ${to.name},\n\nYour Agent Platform account was deleted, with its agents, files, API keys, sessions, scheduled tasks and wallets' keys. Job-board records others see now name a deleted user.\n\nThis is the last message we send to this address.\n${SIGN_OFF}`,
  });
}

/** Runs a mail send without letting its failure fail the action it reports (the failure is logged). */
export async function mailQuietly(ctx: Ctx, what: string, send: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (err) {
    ctx.logger.error({ err }, `${what} mail failed`);
  }
}
