import { Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import { createLogger } from "@svc/common";
import { type FakeUpstream, startFakeUpstream } from "@svc/common/testing";
import { pino } from "pino";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSummarizerApp, type SummarizerApp } from "../app";
import { loadSummarizerConfig } from "../config";

const silent = createLogger("summarizer-test", "silent");
let pages: FakeUpstream;
let summarizer: SummarizerApp;
const apps: SummarizerApp[] = [];

type Page = { status?: number; type?: string; body: string | Buffer; headers?: Record<string, string> };
const routes = new Map<string, Page | ((path: string) => Page | undefined)>();

function makeApp(env: Record<string, string> = {}): SummarizerApp {
  const app = createSummarizerApp({
    config: loadSummarizerConfig({ OUTBOUND_ALLOW_HOSTS: "127.0.0.1", ...env }),
    logger: silent,
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  pages = await startFakeUpstream((req, res) => {
    const path = req.url ?? "/";
    const route = routes.get(path.split("?")[0]);
    const page = typeof route === "function" ? route(path) : route;
    if (path === "/never") return; // accepts and never answers
    if (!page) {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<h1>nothing here</h1>");
      return;
    }
    res.writeHead(page.status ?? 200, {
      "content-type": page.type ?? "text/html; charset=utf-8",
      ...page.headers,
    });
    res.end(page.body);
  });
  summarizer = makeApp();
});

afterAll(async () => {
  for (const app of apps) app.close();
  await pages.close();
});

const at = (path: string) => `${pages.url}${path}`;
const summarize = (url: string, app = summarizer) =>
  request(app.app).post("/api/summarize").set("content-type", "application/json").send({ url });
const extract = (url: string, app = summarizer) =>
  request(app.app).post("/api/extract").set("content-type", "application/json").send({ url });
const html = (head: string, body: string) =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("POST /api/summarize", () => {
  it("returns every field with the spec's limits, order and dedup", async () => {
    const headings = range(25)
      .map((i) => `<h${(i % 3) + 1}>Heading ${i}</h${(i % 3) + 1}>`)
      .join("");
    routes.set("/article", {
      body: html(
        `<title>  The   Article &amp; Friends </title>
           <meta name="description" content="A page about things">
           <meta property="og:description" content="OG text">
           <style>h1 { color: red } .x { }</style>
           <script>var hidden = "<h1>not a heading</h1>";</script>`,
        `<h1>Heading 1</h1><h4>Too deep</h4>${headings}
           ${range(14)
             .map((i) => `<p>Paragraph ${i % 12}</p>`)
             .join("")}
           <p>  </p>
           <noscript><p>Enable JavaScript</p></noscript>
           <template><h2>Template heading</h2></template>`,
      ),
    });
    const res = await summarize(at("/article"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      ["description", "fetchedAt", "headings", "paragraphs", "title", "url", "wordCount"].sort(),
    );
    expect(res.body.url).toBe(at("/article"));
    expect(res.body.title).toBe("The Article & Friends");
    expect(res.body.description).toBe("A page about things");
    // Heading 1 appears twice (once before the 25): kept once; h4 and template/script text never appear.
    expect(res.body.headings).toEqual(range(20).map((i) => `Heading ${i}`));
    expect(res.body.paragraphs).toEqual(range(10).map((i) => `Paragraph ${i % 12}`));
    expect(new Date(res.body.fetchedAt).toISOString()).toBe(res.body.fetchedAt);
    expect(res.headers["server-timing"]).toMatch(/^fetch;dur=\d+\.\d{2}, extract;dur=\d+\.\d{2}$/);
    expect(res.headers.etag).toBeUndefined();
  });

  it("counts words of the visible text only, with entities decoded and whitespace normalized", async () => {
    routes.set("/words", {
      body: html(
        "<title>Counting</title><style>p { margin: 0 }</style>",
        `<h1>One&nbsp;two</h1><p>three <b>four</b>five</p><div>six</div><div>seven</div>
         <script>eight nine ten</script><noscript>eleven</noscript><template>twelve</template>`,
      ),
    });
    const res = await summarize(at("/words"));
    expect(res.body.headings).toEqual(["One two"]);
    expect(res.body.paragraphs).toEqual(["three fourfive"]);
    // One, two, three, fourfive, six, seven
    expect(res.body.wordCount).toBe(6);
  });

  it("takes the title from the first h1 when there is no title tag, and og:description as fallback", async () => {
    routes.set("/untitled", {
      body: html(
        `<meta property="og:description" content="From OG">`,
        "<h2>Sub</h2><h1>First  h1</h1><h1>Second</h1>",
      ),
    });
    const res = await summarize(at("/untitled"));
    expect(res.body.title).toBe("First h1");
    expect(res.body.description).toBe("From OG");
  });

  it("sends the product User-Agent and the HTML Accept header", async () => {
    routes.set("/headers", { body: html("<title>h</title>", "") });
    await summarize(at("/headers"));
    const seen = pages.requests.filter((r) => r.path === "/headers").at(-1);
    expect(seen?.headers["user-agent"]).toBe("AgentPlatformSummarizer/1.0");
    expect(seen?.headers.accept).toBe("text/html, application/xhtml+xml");
  });

  it("reads gzip-encoded pages and application/xhtml+xml", async () => {
    routes.set("/gzip", {
      body: gzipSync(html("<title>Zipped</title>", "<p>inside</p>")),
      headers: { "content-encoding": "gzip" },
    });
    routes.set("/xhtml", { type: "application/xhtml+xml", body: html("<title>X</title>", "<p>x</p>") });
    expect((await summarize(at("/gzip"))).body).toMatchObject({ title: "Zipped", paragraphs: ["inside"] });
    expect((await summarize(at("/xhtml"))).body.title).toBe("X");
  });
});

describe("POST /api/extract", () => {
  it("returns absolute, deduplicated links (max 50, text max 100), images (max 20, alt max 100) and meta", async () => {
    const longText = "x".repeat(150);
    const links = [
      `<a href="/relative">Relative</a>`,
      `<a href="//cdn.example.com/proto">Protocol relative</a>`,
      `<a href="https://example.com/abs">  Absolute
         link </a>`,
      `<a href="/relative">Duplicate</a>`,
      `<a href="#top">Anchor</a>`,
      `<a href="javascript:alert(1)">Script</a>`,
      `<a href="mailto:a@example.com">Mail</a>`,
      `<a href="/long">${longText}</a>`,
      ...range(60).map((i) => `<a href="page-${i}">Page ${i}</a>`),
    ].join("");
    const images = [
      `<img src="/img/first.png" alt="${"a".repeat(130)}">`,
      `<img src="data:image/png;base64,AAAA" alt="inline">`,
      ...range(30).map((i) => `<img src="img/${i}.png" alt="Image ${i}">`),
    ].join("");
    routes.set("/links/index.html", {
      body: html(
        `<title>Links</title>
         <meta name="description" content="Desc">
         <meta property="og:title" content="OG Title">
         <meta property="og:image" content="https://example.com/a.png">
         <meta property="og:image" content="https://example.com/second.png">
         <meta name="twitter:card" content="summary">
         <meta property="twitter:site" content="@example">
         <meta name="keywords" content="ignored">`,
        links + images,
      ),
    });
    const res = await extract(at("/links/index.html"));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["fetchedAt", "images", "links", "meta", "url"]);
    const { links: got, images: imgs, meta } = res.body;
    expect(got).toHaveLength(50);
    expect(got.slice(0, 5)).toEqual([
      { href: at("/relative"), text: "Relative" },
      { href: "http://cdn.example.com/proto", text: "Protocol relative" },
      { href: "https://example.com/abs", text: "Absolute link" },
      { href: at("/long"), text: "x".repeat(100) },
      { href: at("/links/page-1"), text: "Page 1" },
    ]);
    expect(new Set(got.map((l: { href: string }) => l.href)).size).toBe(50);
    expect(imgs).toHaveLength(20);
    expect(imgs[0]).toEqual({ src: at("/img/first.png"), alt: "a".repeat(100) });
    expect(imgs[1]).toEqual({ src: at("/links/img/1.png"), alt: "Image 1" });
    expect(meta).toEqual({
      description: "Desc",
      "og:title": "OG Title",
      "og:image": "https://example.com/a.png",
      "twitter:card": "summary",
      "twitter:site": "@example",
    });
  });

  it("resolves links against the page reached after redirects, and honours <base href>", async () => {
    routes.set("/moved", { status: 301, body: "", headers: { location: "/dir/final.html" } });
    routes.set("/dir/final.html", { body: html("<title>Final</title>", `<a href="next.html">Next</a>`) });
    routes.set("/based", {
      body: html(
        `<base href="https://static.example.org/root/">`,
        `<a href="x.html">X</a><img src="i.png" alt="">`,
      ),
    });
    const moved = await extract(at("/moved"));
    expect(moved.body.url).toBe(at("/moved"));
    expect(moved.body.links).toEqual([{ href: at("/dir/next.html"), text: "Next" }]);
    const based = await extract(at("/based"));
    expect(based.body.links).toEqual([{ href: "https://static.example.org/root/x.html", text: "X" }]);
    expect(based.body.images).toEqual([{ src: "https://static.example.org/root/i.png", alt: "" }]);
  });
});

describe("fetching", () => {
  it("follows up to 5 redirects and refuses a sixth", async () => {
    routes.set("/hop", (path) => {
      const n = Number(new URL(path, "http://x").searchParams.get("n"));
      return n > 0
        ? { status: 302, body: "", headers: { location: `/hop?n=${n - 1}` } }
        : { body: html("<title>Arrived</title>", "") };
    });
    const five = await summarize(at("/hop?n=5"));
    expect(five.status).toBe(200);
    expect(five.body.title).toBe("Arrived");
    const six = await summarize(at("/hop?n=6"));
    expect(six.status).toBe(500);
    expect(six.body).toEqual({ error: "too many redirects (more than 5)" });
  });

  it("refuses a redirect to a private or metadata address with 400", async () => {
    routes.set("/to-metadata", {
      status: 302,
      body: "",
      headers: { location: "http://169.254.169.254/latest/meta-data/" },
    });
    routes.set("/to-localhost", {
      status: 307,
      body: "",
      headers: { location: `http://localhost:${pages.port}/article` },
    });
    const metadata = await summarize(at("/to-metadata"));
    expect(metadata.status).toBe(400);
    expect(metadata.body).toEqual({ error: "refused to fetch 169.254.169.254: link-local address" });
    const local = await summarize(at("/to-localhost"));
    expect(local.status).toBe(400);
    expect(local.body.error).toMatch(/^refused to fetch localhost: it resolves to a loopback address/);
  });

  it("refuses private targets given directly, including decimal and mapped forms", async () => {
    const strict = makeApp({ OUTBOUND_ALLOW_HOSTS: "" });
    const targets = [
      "http://10.0.0.7/",
      "http://2130706433/",
      "http://[::ffff:7f00:1]/",
      "http://0x7f.1/",
      at("/article"),
    ];
    for (const url of targets) {
      const res = await summarize(url, strict);
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatch(/^refused to fetch/);
    }
  });

  it("answers 500 naming the upstream status when it is not 2xx", async () => {
    routes.set("/gone", { status: 410, body: "gone" });
    const gone = await summarize(at("/gone"));
    expect(gone.status).toBe(500);
    expect(gone.body).toEqual({ error: "the page answered HTTP 410 Gone" });
    const missing = await extract(at("/no-such-page"));
    expect(missing.status).toBe(500);
    expect(missing.body.error).toContain("404");
  });

  it("names a network failure", async () => {
    const closed = await startFakeUpstream(() => {});
    const url = `${closed.url}/gone`;
    await closed.close();
    const res = await summarize(url);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "could not fetch the page: connection refused (ECONNREFUSED)" });
  });

  it("gives up on a page that never answers after the fetch timeout", async () => {
    const quick = makeApp({ SUMMARIZER_FETCH_TIMEOUT_MS: "300" });
    const res = await summarize(at("/never"), quick);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "fetching the page timed out after 300 ms" });
  });

  it("cuts an oversize page off at the limit and refuses it, compressed or not", async () => {
    const small = makeApp({ SUMMARIZER_MAX_BYTES: "2000" });
    const big = html("<title>Big</title>", `<p>${"word ".repeat(2000)}</p>`);
    routes.set("/big", { body: big });
    routes.set("/big-chunked", { body: big, headers: { "transfer-encoding": "chunked" } });
    routes.set("/bomb", { body: gzipSync(big), headers: { "content-encoding": "gzip" } });
    for (const path of ["/big", "/big-chunked", "/bomb"]) {
      const res = await summarize(at(path), small);
      expect(res.status, path).toBe(500);
      expect(res.body.error, path).toBe(
        "the page is larger than the 2000-byte limit; it was cut off there (SUMMARIZER_MAX_BYTES=2000)",
      );
    }
    expect((await summarize(at("/big"))).status).toBe(200);
  });

  it("refuses a non-HTML page with 500 naming its type", async () => {
    routes.set("/doc.pdf", { type: "application/pdf", body: Buffer.from("%PDF-1.7") });
    routes.set("/data.json", { type: "application/json; charset=utf-8", body: "{}" });
    expect((await summarize(at("/doc.pdf"))).body).toEqual({
      error: "the page is application/pdf, not text/html or application/xhtml+xml",
    });
    const json = await extract(at("/data.json"));
    expect(json.status).toBe(500);
    expect(json.body.error).toContain("application/json");
  });

  it("honours the charset from the header, from <meta charset>, and a BOM", async () => {
    routes.set("/latin1", {
      type: "text/html; charset=ISO-8859-1",
      body: Buffer.from(html("<title>Café crème</title>", "<p>À bientôt, señor</p>"), "latin1"),
    });
    const sjisTitle = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]); // 日本語
    routes.set("/sjis", {
      type: "text/html",
      body: Buffer.concat([
        Buffer.from('<html><head><meta charset="Shift_JIS"><title>'),
        sjisTitle,
        Buffer.from("</title></head><body><p>"),
        sjisTitle,
        Buffer.from("</p></body></html>"),
      ]),
    });
    routes.set("/http-equiv", {
      type: "text/html",
      body: Buffer.from(
        html(
          `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">`,
          "<h1>Fianc\u00e9e</h1>",
        ),
        "latin1",
      ),
    });
    routes.set("/bom", {
      type: "text/html",
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html("<title>Ünïcode</title>", ""))]),
    });
    const latin1 = await summarize(at("/latin1"));
    expect(latin1.body.title).toBe("Café crème");
    expect(latin1.body.paragraphs).toEqual(["À bientôt, señor"]);
    const sjis = await summarize(at("/sjis"));
    expect(sjis.body.title).toBe("日本語");
    expect(sjis.body.paragraphs).toEqual(["日本語"]);
    expect((await summarize(at("/http-equiv"))).body.title).toBe("Fiancée");
    expect((await summarize(at("/bom"))).body.title).toBe("Ünïcode");
  });
});

describe("request validation", () => {
  const post = (body: string, type = "application/json") =>
    request(summarizer.app).post("/api/summarize").set("content-type", type).send(body);

  it.each([
    ["{}", 400, "url is required"],
    ['{"url": ""}', 400, "url is required"],
    ['{"url": 42}', 400, "url must be a string"],
    ["[1, 2]", 400, "request body must be a JSON object"],
    ['"http://example.com"', 400, "request body must be a JSON object"],
    ["{not json", 400, "request body is not valid JSON"],
    ['{"url": "not a url"}', 400, "url is not a valid URL: not a url"],
    ['{"url": "ftp://example.com/file"}', 400, "only http and https URLs are supported (got ftp)"],
    ['{"url": "file:///etc/passwd"}', 400, "only http and https URLs are supported (got file)"],
  ])("%s -> %i", async (body, status, error) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
  });

  // A body over 16 KB (413): body-limit.running.test.ts, through the running summarizer.
  it("refuses a body that is not JSON with 400", async () => {
    const form = await post("url=http://example.com", "application/x-www-form-urlencoded");
    expect(form.status).toBe(400);
    expect(form.body).toEqual({ error: "Content-Type must be application/json" });
  });

  it("a body it cannot decode (charset, content encoding) is 415 naming why, not a 500", async () => {
    const latin = await post('{"url": "http://example.com"}', "application/json; charset=latin1");
    expect(latin.status).toBe(415);
    expect(latin.body).toEqual({ error: 'unsupported charset "LATIN1"' });
    const encoded = await request(summarizer.app)
      .post("/api/summarize")
      .set("content-type", "application/json")
      .set("content-encoding", "foo")
      .send('{"url": "http://example.com"}');
    expect(encoded.status).toBe(415);
    expect(encoded.body).toEqual({ error: 'unsupported content encoding "foo"' });
  });
});

describe("logs", () => {
  it("writes one JSON line per request with method, path, status, duration and target host, never the page", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString().trim().split("\n"));
        done();
      },
    });
    const logged = createSummarizerApp({
      config: loadSummarizerConfig({ OUTBOUND_ALLOW_HOSTS: "127.0.0.1" }),
      logger: pino({ level: "info" }, sink),
    });
    apps.push(logged);
    routes.set("/secret-page", { body: html("<title>Top secret title</title>", "<p>secret body</p>") });
    await summarize(at("/secret-page?token=abc"), logged);
    const entries = lines.map((line) => JSON.parse(line));
    const entry = entries.find((e) => e.path === "/api/summarize");
    expect(entry).toMatchObject({ method: "POST", status: 200, targetHost: `127.0.0.1:${pages.port}` });
    expect(entry.durationMs).toEqual(expect.any(Number));
    expect(lines.join("\n")).not.toContain("secret");
    expect(lines.join("\n")).not.toContain("token=abc");
  });
});
