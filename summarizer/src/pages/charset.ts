/**
 * Decodes an HTML page to text: byte-order mark first, then the Content-Type charset, then a
 * `<meta charset>` / `<meta http-equiv="content-type">` in the first 1024 bytes, else UTF-8.
 */
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i;

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "");
  return match?.[1];
}

export function sniffCharset(body: Buffer, contentType: string | undefined): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  const declared =
    charsetFromContentType(contentType) ?? META_CHARSET.exec(body.subarray(0, 1024).toString("latin1"))?.[1];
  return declared && isKnownCharset(declared) ? declared.toLowerCase() : "utf-8";
}

function isKnownCharset(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

export function decodeHtml(body: Buffer, contentType: string | undefined): string {
  // TextDecoder strips a BOM that matches its encoding.
  return new TextDecoder(sniffCharset(body, contentType)).decode(body);
}
