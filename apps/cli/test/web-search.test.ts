// The web-search extension through the real CLI in print mode: the mock model searches (a local
// fake Tavily, its endpoint and key from config and env), fetches the result it found (a local
// page, allowlisted, its domain allowed by a rule since print mode cannot ask), and answers
// citing the URL. The key never appears in stream-json, stderr or the session journal.
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, readText, runKeel, sessionFiles } from "./helpers.js";

const KEY = "tvly-cli-e2e-5d1c0ffee";
const { fresh } = mockSuite();
let page: Server;
let tavily: Server;
let pageUrl = "";
let tavilyUrl = "";
const searches: { auth?: string; body: Record<string, unknown> }[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  page = createServer((_req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(
      "<html><head><title>Widgets 3.0</title></head><body><nav>Home · Blog</nav><main><h1>Widgets 3.0</h1>" +
        `<p>${"Widgets 3.0 drops the legacy renderer and ships the new layout engine. ".repeat(5)}</p></main></body></html>`,
    );
  });
  pageUrl = `${await listen(page)}/blog/widgets-3`;
  tavily = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      searches.push({ auth: req.headers.authorization, body: JSON.parse(raw) });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          query: "widgets 3.0",
          images: [],
          results: [
            { title: "Widgets 3.0 released", url: pageUrl, content: "The new layout engine.", score: 0.88 },
          ],
          response_time: 0.1,
          usage: { credits: 1 },
        }),
      );
    });
  });
  tavilyUrl = await listen(tavily);
});
afterAll(() => {
  page.close();
  tavily.close();
});

function configure(home: string): void {
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      permissions: { allow: ["WebFetch(domain:127.0.0.1)"] },
      extensions: {
        "web-search": {
          config: {
            search: { endpoint: tavilyUrl, apiKeyEnv: "KEEL_E2E_TAVILY_KEY" },
            fetch: { allow: ["127.0.0.1"] },
          },
        },
      },
    }),
  );
}

describe("keel -p with web-search", () => {
  it("WebSearch then WebFetch on a result; the answer cites the URL; the key stays out of every output", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ id: "toolu_s1", name: "WebSearch", arguments: { query: "widgets 3.0" } }] },
      { toolCalls: [{ id: "toolu_f1", name: "WebFetch", arguments: { url: pageUrl } }] },
      { text: `Widgets 3.0 drops the legacy renderer (source: ${pageUrl}).` },
    ]);
    configure(ws.home);
    const r = await runKeel(
      [
        "-p",
        "What is new in widgets 3.0? Cite your source.",
        "--output-format",
        "stream-json",
        "--model",
        MODEL,
        "--cwd",
        ws.repo,
      ],
      { server, ws, env: { KEEL_E2E_TAVILY_KEY: KEY, TAVILY_API_KEY: undefined } },
    );
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]!.tools).toEqual(expect.arrayContaining(["WebSearch", "WebFetch"]));
    expect(out.at(-1)).toMatchObject({
      type: "result",
      text: `Widgets 3.0 drops the legacy renderer (source: ${pageUrl}).`,
    });
    expect(searches.at(-1)).toMatchObject({ auth: `Bearer ${KEY}`, body: { query: "widgets 3.0" } });

    // What the model read: the search result, then the page as Markdown of its main content.
    const third = server.requests[2]!.raw;
    expect(third).toContain(`1. Widgets 3.0 released\\n   ${pageUrl}`);
    expect(third).toContain("# Widgets 3.0");
    expect(third).toContain("Widgets 3.0 drops the legacy renderer and ships the new layout engine.");
    expect(third).not.toContain("Home · Blog");
    expect(third).toContain("untrusted data from the web");

    for (const text of [
      r.stdout,
      r.stderr,
      ...sessionFiles(ws.home).map(readText),
      ...server.requests.map((q) => q.raw),
    ])
      expect(text).not.toContain(KEY);
  });

  it("Tavily chosen without a key: no WebSearch tool, and one line on stderr saying how to enable it, once per Keel home", async () => {
    const { server, ws } = fresh([{ text: "ok" }, { text: "ok again" }]);
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({ extensions: { "web-search": { config: { search: { provider: "tavily" } } } } }),
    );
    const r = await runKeel(
      ["-p", "hi", "--output-format", "stream-json", "--model", MODEL, "--cwd", ws.repo],
      {
        server,
        ws,
        env: { TAVILY_API_KEY: undefined },
      },
    );
    expect(r.code).toBe(0);
    const tools = (server.requests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toContain("WebFetch");
    expect(tools).not.toContain("WebSearch");
    const notes = r.stderr.split("\n").filter((l) => l.includes("web-search"));
    expect(notes).toEqual([
      expect.stringMatching(
        /^keel: info: web-search: WebSearch is off: no Tavily API key \(\$TAVILY_API_KEY is not set\)\. To enable it, use an Anthropic or OpenAI model/,
      ),
    ]);
    // The next run in the same home says nothing more: a script's stderr stays clean.
    const again = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: { TAVILY_API_KEY: undefined },
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
  });

  // The must-show: WebSearch with only the model's key, through each provider's own search.
  const SOURCE = "https://nodejs.org/en/blog/release/v24.12.0";
  const searchTurns = [
    { toolCalls: [{ name: "WebSearch", arguments: { query: "current Node.js LTS" } }] },
    {
      serverTools: [
        {
          name: "web_search" as const,
          query: "current Node.js LTS",
          results: [{ url: SOURCE, title: "Node.js 24.12.0 (LTS)" }],
        },
      ],
      text: "The current LTS is Node.js 24.12.0.",
      citations: [{ url: SOURCE, title: "Node.js 24.12.0 (LTS)", citedText: "Node.js 24.12.0" }],
      usage: { input: 9000, output: 100 },
    },
    { text: `Node.js 24.12.0 (${SOURCE}).` },
  ];

  it.each([
    ["anthropic", MODEL, "web_search_20250305"],
    ["openai", "openai/gpt-6.2-astra", "web_search"],
  ])(
    "WebSearch through %s's own search with only the model's key: citations in the result, the search billed",
    async (provider, model, toolType) => {
      const { server, ws } = fresh(searchTurns);
      const r = await runKeel(
        [
          "-p",
          "What is the current Node.js LTS?",
          "--output-format",
          "json",
          "--model",
          model,
          "--cwd",
          ws.repo,
        ],
        {
          server,
          ws,
          env: {
            TAVILY_API_KEY: undefined,
            ...(provider === "openai"
              ? { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: "test" }
              : {}),
          },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      const [result] = lines(r.stdout) as [
        Record<string, unknown> & {
          usage: { serverTools?: unknown; cost: { serverTools?: number; total: number } };
        },
      ];
      expect(result).toMatchObject({ type: "result", text: `Node.js 24.12.0 (${SOURCE}).` });
      // The search request offered the provider's own tool; no Tavily key, no other service.
      expect(server.requests).toHaveLength(3);
      expect((server.requests[1]!.body.tools as { type: string }[]).map((t) => t.type)).toEqual([toolType]);
      // The answer's citation and source reached the model…
      const third = server.requests[2]!.raw;
      expect(third).toContain(`[1] Node.js 24.12.0 (LTS) <${SOURCE}>`);
      expect(third).toContain(`1. Node.js 24.12.0 (LTS)\\n   ${SOURCE}`);
      // …and the journal, with the tool result.
      const journal = sessionFiles(ws.home).map(readText).join("\n");
      expect(journal).toContain(
        `"citations":[{"url":"${SOURCE}","title":"Node.js 24.12.0 (LTS)","citedText":"Node.js 24.12.0"}]`,
      );
      // The search is billed in the run's cost: its tokens and one search at $10 per 1,000.
      expect(result.usage.serverTools).toEqual({ webSearch: 1 });
      expect(result.usage.cost.serverTools).toBeCloseTo(0.01, 10);
      expect(result.totalCost).toBeCloseTo(result.usage.cost.total, 10);
      expect(result.usage.cost.total).toBeGreaterThan(0.01);
    },
  );
});
