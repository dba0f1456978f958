/** User agents of automation clients refused at sign-up (BOT_PROTECTION=on). */
const AUTOMATION = [
  /\bcurl\//i,
  /\bwget\//i,
  /python-requests/i,
  /python-urllib/i,
  /aiohttp/i,
  /go-http-client/i,
  /headlesschrome/i,
  /phantomjs/i,
  /\bhttpie\//i,
  /\bokhttp\//i,
  /apache-httpclient/i,
  /libwww-perl/i,
  /\bscrapy\//i,
  /\baxios\//i,
  /node-fetch/i,
  /\bundici\b/i,
  /^node$/i,
  /postmanruntime/i,
];

/** Whether a User-Agent looks like an automation client (a missing one does too). */
export function isAutomatedClient(userAgent: string | null | undefined): boolean {
  const ua = userAgent?.trim();
  if (!ua) return true;
  return AUTOMATION.some((pattern) => pattern.test(ua));
}
