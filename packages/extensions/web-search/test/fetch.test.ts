// WebFetch against local HTTP servers on an allowlisted 127.0.0.1: what each kind of response
// becomes, the caps (size, time, redirects), charsets, the markdown alternate and the cache.
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ARTICLE } from "./fixtures/article.js";
import { connectVia, fakeInternet, type Local, startServer, stubResolver } from "./helpers/net.js";
import { activated, text } from "./helpers/tools.js";

const servers: Local[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

/** WebFetch with 127.0.0.1 allowlisted (as a user would for local work) and no real DNS. */
function webFetch(fetch: Record<string, unknown> = {}) {
  const net = fakeInternet();
  return activated(
    { network: { connect: connectVia(net.dial, {}), resolver: stubResolver({}).resolver } },
    {
      fetch: { allow: ["127.0.0.1"], ...fetch },
    },
  );
}

describe("WebFetch content", () => {
  it("turns a real-looking HTML page into Markdown of its main content, links made absolute", async () => {
    const site = await serve((_req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(ARTICLE);
    });
    const { run } = await webFetch();
    const result = await run("WebFetch", { url: site.url("/blog/parsers-4-2") });
    const out = text(result);
    expect(result.isError).toBeUndefined();
    // Markdown is asked for first; HTML is accepted.
    expect(site.requests[0]!.headers.accept).toMatch(/^text\/markdown, text\/html;q=0\.9/);
    expect(out).toContain(
      `url="${site.url("/blog/parsers-4-2")}" content-type="text/html" title="Release notes: Parsers 4.2 | Example Docs"`,
    );
    expect(out).toContain("# Parsers 4.2");
    expect(out).toContain(`Read the [streaming guide](${site.url("/guides/streaming")}) before upgrading.`);
    expect(out).toContain("* Streaming is on by default (`stream: true`).");
    expect(out).toContain(
      '```ts\nimport { parse } from "parsers";\nconst ast = parse(source, { stream: false });\n```',
    );
    expect(out).toContain("| Version | Node |");
    expect(out).toContain(`![The parser pipeline](${site.url("/img/pipeline.png")})`);
    // Page chrome, scripts and styles are gone.
    for (const chrome of [
      "Guides",
      "On this page",
      "Privacy",
      "cookies",
      "dataLayer",
      "font-family",
      "Search docs",
    ])
      expect(out).not.toContain(chrome);
    expect(result.details).toMatchObject({ status: 200, contentType: "text/html", offset: 0, cached: false });
  });

  it("says so when a page nests its HTML past the depth bound, and still returns its text", async () => {
    const site = await serve((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(`<html><body>${"<div>".repeat(20_000)}buried text${"</div>".repeat(20_000)}</body></html>`);
    });
    const { run } = await webFetch();
    const result = await run("WebFetch", { url: site.url("/deep") });
    expect(result.isError).toBeUndefined();
    const out = text(result);
    expect(out).toContain("buried text");
    expect(out).toContain(
      "The page nests its HTML deeper than 256 levels; below that only the text was kept",
    );
  });

  it("gives plain text or the raw body when asked", async () => {
    const site = await serve((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(ARTICLE);
    });
    const { run } = await webFetch();
    const plain = text(await run("WebFetch", { url: site.url("/a"), format: "text" }));
    expect(plain).toContain("Parsers 4.2 makes streaming the default");
    expect(plain).not.toContain("**");
    expect(plain).toContain('import { parse } from "parsers";');
    const raw = text(await run("WebFetch", { url: site.url("/a"), format: "raw" }));
    expect(raw).toContain('<link rel="stylesheet" href="/assets/site.css">');
  });

  it("uses the page's markdown alternate when it offers one", async () => {
    const site = await serve((req, res) => {
      if (req.url === "/docs/page.md") {
        res.setHeader("content-type", "text/markdown; charset=utf-8");
        res.end("# The page\n\nWritten in *Markdown* by its authors.\n");
        return;
      }
      res.setHeader("content-type", "text/html");
      res.end(
        '<html><head><title>Page</title><link rel="alternate" type="text/markdown" href="page.md"></head><body><p>HTML body</p></body></html>',
      );
    });
    const { run } = await webFetch();
    const result = await run("WebFetch", { url: site.url("/docs/page") });
    const out = text(result);
    expect(site.requests.map((r) => r.url)).toEqual(["/docs/page", "/docs/page.md"]);
    expect(out).toContain(`Read the page's own markdown version: ${site.url("/docs/page.md")}`);
    expect(out).toContain("# The page\n\nWritten in *Markdown* by its authors.");
    expect(out).not.toContain("HTML body");
    expect(result.details).toMatchObject({ via: "markdown-alternate", contentType: "text/markdown" });
  });

  it("returns markdown, JSON and plain text exactly as sent", async () => {
    const bodies: Record<string, [string, string]> = {
      "/readme": ["text/markdown", "# Title\n\n<b>kept</b> as written\n"],
      "/data": ["application/json", '{"b":2,"a":[1,"x"]}'],
      "/notes": ["text/plain; charset=utf-8", "line one\n  line two\n"],
      "/feed": ["application/problem+json", '{"title":"Not here"}'],
    };
    const site = await serve((req, res) => {
      const [type, body] = bodies[req.url!]!;
      res.setHeader("content-type", type);
      res.end(body);
    });
    const { run } = await webFetch();
    for (const [path, [, body]] of Object.entries(bodies)) {
      const out = text(await run("WebFetch", { url: site.url(path) }));
      expect(out).toContain(`">\n${body}\n</external-data>`);
    }
  });

  it("refuses binary content and names its type", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const site = await serve((req, res) => {
      if (req.url === "/logo.png") res.setHeader("content-type", "image/png");
      res.end(req.url === "/logo.png" ? png : Buffer.concat([png, Buffer.alloc(64)]));
    });
    const { run } = await webFetch();
    const image = await run("WebFetch", { url: site.url("/logo.png") });
    expect(image.isError).toBe(true);
    expect(text(image)).toBe(
      `WebFetch failed: ${site.url("/logo.png")} is image/png (16 bytes), not text; WebFetch returns text only`,
    );
    // No content type at all: sniffed.
    const untyped = await run("WebFetch", { url: site.url("/blob") });
    expect(text(untyped)).toContain("is binary data (80 bytes), not text");
  });

  it("honours the declared charset, and a <meta charset> when the header has none", async () => {
    const site = await serve((req, res) => {
      if (req.url === "/latin") {
        res.setHeader("content-type", "text/plain; charset=windows-1252");
        res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x35])); // "café €5"
        return;
      }
      res.setHeader("content-type", "text/html");
      const html = '<html><head><meta charset="shift_jis"><title>t</title></head><body><p>';
      res.end(
        Buffer.concat([
          Buffer.from(html),
          Buffer.from([0x93, 0xfa, 0x96, 0x7b]),
          Buffer.from("</p></body></html>"),
        ]),
      );
    });
    const { run } = await webFetch();
    expect(text(await run("WebFetch", { url: site.url("/latin") }))).toContain("café €5");
    expect(text(await run("WebFetch", { url: site.url("/sjis") }))).toContain("日本");
  });
});

describe("WebFetch limits", () => {
  it("cuts a 20 MB page at the download cap, says so, and reads on from the offset without downloading again", async () => {
    const line = (i: number) => `${String(i).padStart(8, "0")} ${"lorem ipsum ".repeat(7)}\n`;
    const lineBytes = Buffer.byteLength(line(0));
    const total = 20 * 1024 * 1024;
    const site = await serve((_req, res) => {
      res.writeHead(200, {
        "content-type": "text/plain",
        "content-length": String(Math.floor(total / lineBytes) * lineBytes),
      });
      let i = 0;
      const pump = () => {
        while (i * lineBytes < total - lineBytes) {
          const chunk = Array.from({ length: 500 }, () => line(i++)).join("");
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("error", () => {});
      pump();
    });
    const { run } = await webFetch();
    const first = await run("WebFetch", { url: site.url("/big.txt") });
    const out = text(first);
    const cut = /offset (\d+)\.\]/.exec(out);
    expect(cut).not.toBeNull();
    const next = Number(cut![1]);
    expect(next).toBeGreaterThan(90_000);
    expect(next).toBeLessThanOrEqual(100_000);
    expect(out).toContain(
      `[Cut: showing bytes 0–${next} of 10485760; 9.9 MB remain. To read on, call WebFetch with url "${site.url("/big.txt")}" and offset ${next}.]`,
    );
    expect(out).toMatch(
      /\[Download cut: the page is larger than the download cap, so only its first 10\.0 MB of the 20\.0 MB it announced were read; about 10\.0 MB more were not downloaded\./,
    );
    expect(first.details).toMatchObject({ downloadCut: { readBytes: 10 * 1024 * 1024 } });

    const second = await run("WebFetch", { url: site.url("/big.txt"), offset: next });
    const rest = text(second);
    // It picks up on the line after the last one shown, from the cache.
    const lastShown = Number(/(\d{8}) [^\n]*\n\n?<\/external-data>/.exec(out)![1]);
    expect(rest).toContain(`">\n${line(lastShown + 1)}`);
    expect(second.details).toMatchObject({ offset: next, cached: true });
    expect(site.requests).toHaveLength(1);
  });

  it("stops a slow page at the time cap", async () => {
    const site = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<html><body><p>first bytes…");
      // …and nothing more: the rest never comes.
    });
    const { run } = await webFetch({ timeoutMs: 1000 });
    const result = await run("WebFetch", { url: site.url("/slow") });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `WebFetch failed: ${site.url("/slow")} did not finish within 1 s; try again later or another source`,
    );
  });

  it("follows same-host redirects up to the cap and stops past it", async () => {
    const site = await serve((req, res) => {
      const n = Number(req.url!.split("/")[2]);
      if (req.url!.startsWith("/chain/") && n < 9) {
        res.writeHead(n % 2 ? 302 : 301, { location: `/chain/${n + 1}` }).end();
        return;
      }
      res.setHeader("content-type", "text/plain");
      res.end(`arrived at ${req.url}`);
    });
    const { run } = await webFetch({ maxRedirects: 5 });
    const short = await run("WebFetch", { url: site.url("/chain/5") });
    expect(text(short)).toContain(`Redirected to ${site.url("/chain/9")}.`);
    expect(text(short)).toContain("arrived at /chain/9");
    const before = site.requests.length;
    const long = await run("WebFetch", { url: site.url("/chain/0") });
    expect(long.isError).toBe(true);
    expect(text(long)).toBe(
      `WebFetch failed: ${site.url("/chain/0")} redirected more than 5 times (last to ${site.url("/chain/6")}); stopped there`,
    );
    // The first request and five redirects; the sixth target was never asked for.
    expect(site.requests.slice(before).map((r) => r.url)).toEqual(
      [0, 1, 2, 3, 4, 5].map((n) => `/chain/${n}`),
    );
  });

  it("hands a redirect to another host back to the model instead of following it", async () => {
    const other = await serve((_req, res) => res.end("other host"));
    const site = await serve((_req, res) =>
      res.writeHead(301, { location: `http://localhost:${other.port}/landing` }).end(),
    );
    const { run } = await webFetch();
    const result = await run("WebFetch", { url: site.url("/moved") });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe(
      `${site.url("/moved")} redirects (HTTP 301) to another host: http://localhost:${other.port}/landing\n` +
        "Nothing was fetched from there. To read it, call WebFetch with that URL (its domain is checked on its own).",
    );
    expect(other.requests).toHaveLength(0);
  });

  it("answers a second fetch of the same page from the session's cache", async () => {
    const site = await serve((_req, res) => {
      res.setHeader("content-type", "text/plain");
      res.end("cached body");
    });
    const { run, extension, runtime } = await webFetch();
    await run("WebFetch", { url: site.url("/c") });
    const again = await run("WebFetch", { url: site.url("/c") });
    expect(again.details).toMatchObject({ cached: true });
    expect(site.requests).toHaveLength(1);
    // Another format is another document; a session shutdown empties the cache.
    await run("WebFetch", { url: site.url("/c"), format: "raw" });
    expect(site.requests).toHaveLength(2);
    await extension.hooks!.sessionShutdown!({ reason: "exit" }, runtime as never, {
      signal: new AbortController().signal,
    });
    await run("WebFetch", { url: site.url("/c") });
    expect(site.requests).toHaveLength(3);
  });

  it("reports HTTP errors with their status, and says when an offset is past the end", async () => {
    const site = await serve((req, res) => {
      if (req.url === "/gone") return void res.writeHead(404).end("nope");
      if (req.url === "/busy") return void res.writeHead(429, { "retry-after": "30" }).end();
      res.setHeader("content-type", "text/plain");
      res.end("short");
    });
    const { run } = await webFetch();
    expect(text(await run("WebFetch", { url: site.url("/gone") }))).toBe(
      `WebFetch failed: ${site.url("/gone")} answered HTTP 404`,
    );
    expect(text(await run("WebFetch", { url: site.url("/busy") }))).toBe(
      `WebFetch failed: ${site.url("/busy")} answered HTTP 429 (retry after 30)`,
    );
    const past = await run("WebFetch", { url: site.url("/s"), offset: 99 });
    expect(past.isError).toBe(true);
    expect(text(past)).toBe(`WebFetch: offset 99 is past the end of ${site.url("/s")} (5 bytes).`);
  });
});
