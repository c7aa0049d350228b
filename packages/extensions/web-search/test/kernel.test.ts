// The extension inside the real kernel with the faux model: WebSearch then WebFetch on a result,
// permissions as the gate applies them (ask once per domain, "always" saved narrowly, headless
// denial, deny rules), usage, the key kept out of the journal and the requests, and the cache
// invariant (each request a prefix of the next, its history breakpoint still in place).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CodingAgent, type ToolApprovalRequest, trustProject } from "@keel/coding-agent";
import {
  assertPrefixRetained,
  fauxProvider,
  hosted,
  toolResults as results,
  startKernel,
} from "@keel/coding-agent/testing";
import type { RecordedRequest, Scenario } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWebSearchExtension } from "../src/index.js";
import { startFakeTavily } from "./helpers/fake-tavily.js";
import { connectVia, fakeInternet, type Local, startServer, stubResolver, TEST_CA } from "./helpers/net.js";
import { type Sandbox, sandbox } from "./helpers/sandbox.js";

const KEY = "tvly-kernel-secret-7f3a9c";
const PUBLIC = "93.184.215.14";
const PAGE = "https://docs.example.com/blog/parsers-4-2";
let tavily: Awaited<ReturnType<typeof startFakeTavily>>;
let web: Local;
let box: Sandbox;
const open: CodingAgent[] = [];

beforeAll(async () => {
  tavily = await startFakeTavily();
  web = await startServer(
    (req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(
        `<html><head><title>Parsers 4.2</title></head><body><main><h1>Parsers 4.2</h1><p>${"Streaming is now the default. ".repeat(10)}</p><p>Served for ${req.headers.host}${req.url}</p></main></body></html>`,
      );
    },
    { tls: true },
  );
});
afterAll(async () => {
  await tavily.close();
  await web.close();
});
afterEach(async () => {
  for (const a of open.splice(0)) await a.close();
  box?.cleanup();
});

function extension(env: Record<string, string> = { TAVILY_API_KEY: KEY }) {
  const net = fakeInternet({ [`${PUBLIC}:443`]: web.port });
  const dns = stubResolver({ "docs.example.com": [PUBLIC], "other.example.com": [PUBLIC] });
  return createWebSearchExtension({
    env,
    network: { connect: connectVia(net.dial, {}), resolver: dns.resolver, ca: [TEST_CA] },
  });
}

async function start(
  scenario: Scenario,
  config: Record<string, unknown>,
  options: {
    approve?: (r: ToolApprovalRequest) => Promise<never | { decision: string }>;
    env?: Record<string, string>;
    trusted?: boolean;
    extension?: ReturnType<typeof extension>;
  } = {},
) {
  box = sandbox();
  writeFileSync(join(box.home, "config.json"), JSON.stringify(config));
  if (options.trusted) trustProject(box.workspace, { home: box.home })._unsafeUnwrap();
  const faux = fauxProvider(scenario);
  const agent = await startKernel({
    cwd: box.workspace,
    home: box.home,
    model: faux.model,
    streamOptions: faux.streamOptions,
    extensions: [hosted(options.extension ?? extension(options.env))],
    ...(options.approve ? { ui: { approve: options.approve as never } } : {}),
  });
  open.push(agent);
  return { agent, requests: faux.requests };
}

const webConfig = {};
const withEndpoint = () => ({
  extensions: { "web-search": { config: { search: { endpoint: tavily.url } } } },
});

type Json = Record<string, unknown>;
const raw = (r: RecordedRequest) => JSON.parse(r.raw) as Json;
const toolNames = (r: RecordedRequest) => (raw(r).tools as { name: string }[]).map((t) => t.name);
const toolResults = (r: RecordedRequest): string[] => results(r).map((t) => t.text);

describe("web-search in the kernel", () => {
  it("searches, asks once for the page's domain, fetches it, and the answer cites it", async () => {
    const asked: ToolApprovalRequest[] = [];
    const scenario: Scenario = {
      turns: [
        { toolCalls: [{ name: "WebSearch", arguments: { query: "parsers 4.2 release" } }] },
        { toolCalls: [{ name: "WebFetch", arguments: { url: PAGE } }] },
        { text: `Parsers 4.2 made streaming the default (${PAGE}).` },
        { toolCalls: [{ name: "WebFetch", arguments: { url: `${PAGE}?again=1` } }] },
        { text: "Same page again." },
      ],
    };
    const { agent, requests } = await start(scenario, withEndpoint(), {
      approve: async (request) => {
        asked.push(request);
        return { decision: "allow_always" };
      },
    });
    expect((await agent.prompt("What changed in parsers 4.2? Cite the page.")).isOk()).toBe(true);
    expect(toolNames(requests[0]!)).toEqual(expect.arrayContaining(["WebSearch", "WebFetch"]));
    const [search, page] = toolResults(requests[2]!);
    expect(search).toContain(`1. Parsers 4.2 released\n   ${PAGE}`);
    expect(page).toContain(
      `<external-data source="web-fetch" url="${PAGE}" content-type="text/html" title="Parsers 4.2"`,
    );
    expect(page).toContain("Served for docs.example.com/blog/parsers-4-2");
    expect(agent.messages().at(-1)).toMatchObject({ role: "assistant" });
    expect(JSON.stringify(agent.messages().at(-1))).toContain(PAGE);

    // WebSearch ran without a question; WebFetch asked once, for its domain. The project is not
    // trusted, so "always" holds for this session and is saved nowhere (never user-wide).
    expect(asked.map((a) => [a.toolName, a.alwaysRules, a.alwaysSavesTo])).toEqual([
      ["WebFetch", ["WebFetch(domain:docs.example.com)"], undefined],
    ]);
    expect(JSON.parse(readFileSync(join(box.home, "config.json"), "utf8")).permissions).toBeUndefined();
    expect((await agent.prompt("Read it once more.")).isOk()).toBe(true);
    expect(asked).toHaveLength(1);

    expect(agent.usageBreakdown().external).toEqual([{ source: "tavily", requests: 1, credits: 2 }]);
    assertPrefixRetained(requests);
    // The key went to Tavily only: not to the model, not into the journal.
    expect(tavily.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    for (const r of requests) expect(r.raw).not.toContain(KEY);
    expect(readFileSync(agent.sessionFile!, "utf8")).not.toContain(KEY);
  });

  it("in a trusted project, 'always' saves the domain rule in the project's personal config", async () => {
    const scenario: Scenario = {
      turns: [{ toolCalls: [{ name: "WebFetch", arguments: { url: PAGE } }] }, { text: "read it" }],
    };
    const { agent } = await start(scenario, withEndpoint(), {
      trusted: true,
      approve: async () => ({ decision: "allow_always" }),
    });
    expect((await agent.prompt("read the page")).isOk()).toBe(true);
    const local = JSON.parse(readFileSync(join(box.workspace, ".keel", "config.local.json"), "utf8"));
    expect(local.permissions.allow).toEqual(["WebFetch(domain:docs.example.com)"]);
    expect(JSON.parse(readFileSync(join(box.home, "config.json"), "utf8")).permissions).toBeUndefined();
  });

  it("headless: a new domain is denied with the rule that would allow it; a deny rule holds; an allow rule runs", async () => {
    const scenario: Scenario = {
      turns: [
        { toolCalls: [{ name: "WebFetch", arguments: { url: PAGE } }] },
        { toolCalls: [{ name: "WebFetch", arguments: { url: "https://other.example.com/x" } }] },
        { toolCalls: [{ name: "WebFetch", arguments: { url: "https://tracker.other.example.com/p" } }] },
        { text: "done" },
      ],
    };
    const config = {
      ...withEndpoint(),
      permissions: {
        allow: ["WebFetch(domain:other.example.com)"],
        deny: ["WebFetch(domain:*.other.example.com)"],
      },
    };
    const { agent, requests } = await start(scenario, config);
    expect((await agent.prompt("fetch things")).isOk()).toBe(true);
    const results = toolResults(requests.at(-1)!);
    expect(results[0]).toContain("needs the user's approval and nobody can approve it in this run");
    expect(results[0]).toContain("WebFetch(domain:docs.example.com)");
    expect(results[1]).toContain("Served for other.example.com/x");
    expect(results[2]).toContain("denied by rule WebFetch(domain:*.other.example.com)");
  });

  it("without a key the model has WebFetch only, the user gets one line, and the prefix never changes", async () => {
    const scenario: Scenario = { turns: [{ text: "one" }, { text: "two" }] };
    const { agent, requests } = await start(scenario, webConfig, { env: {} });
    await agent.prompt("hi");
    await agent.prompt("again");
    expect(toolNames(requests[0]!)).toContain("WebFetch");
    expect(toolNames(requests[0]!)).not.toContain("WebSearch");
    expect(
      agent
        .diagnostics()
        .filter((d) => d.extensionId === "web-search")
        .map((d) => d.level),
    ).toEqual(["info"]);
    assertPrefixRetained(requests);
  });

  it("a local dev server needs one setting, fetch.allow: without it the refusal names it and nobody is asked", async () => {
    const dev = await startServer((req, res) => res.end(`dev server ${req.url}`));
    try {
      // "localhost" is dialed by name once allowed by name; the test dialer sends it to 127.0.0.1.
      const net = fakeInternet({ [`localhost:${dev.port}`]: dev.port });
      const local = () =>
        createWebSearchExtension({
          env: {},
          network: { connect: connectVia(net.dial, {}), resolver: stubResolver({}).resolver },
        });
      const url = `http://localhost:${dev.port}/health`;
      const scenario = (): Scenario => ({
        turns: [{ toolCalls: [{ name: "WebFetch", arguments: { url } }] }, { text: "done" }],
      });
      // Headless (print mode), nothing configured: the first thing said is the one setting to add.
      const refused = await start(scenario(), {}, { extension: local() });
      expect((await refused.agent.prompt("check the dev server")).isOk()).toBe(true);
      const [said] = toolResults(refused.requests.at(-1)!);
      expect(said).toContain(
        'add "localhost" to extensions.web-search.config.fetch.allow in your user config (that one setting lets WebFetch reach it)',
      );
      expect(said).not.toContain("permission rule");
      expect(dev.requests).toHaveLength(0);
      await refused.agent.close();
      box.cleanup();

      // That one setting, no permission rule: fetched over plain http, headless.
      const allowed = await start(
        scenario(),
        { extensions: { "web-search": { config: { fetch: { allow: ["localhost"] } } } } },
        { extension: local() },
      );
      expect((await allowed.agent.prompt("check the dev server")).isOk()).toBe(true);
      const [page] = toolResults(allowed.requests.at(-1)!);
      expect(page).toContain("dev server /health");
      expect(page).not.toContain("Fetched over https");
      expect(dev.requests).toHaveLength(1);
    } finally {
      await dev.close();
    }
  });
});
