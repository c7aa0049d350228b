// `keel models` and models the catalog does not know, through the BUILT bin against the mock
// server's models route: the merged listing, its cache and offline answer, print mode on an
// endpoint-only id, typos refused with the close match, and the defaults --help and the READMEs name.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_PROVIDERS } from "@keel/ai";
import { discoveryCachePath } from "@keel/coding-agent";
import { startMockServer } from "@keel/testing";
import { describe, expect, it } from "vitest";
import { HELP } from "../src/help.js";
import { CLI_ROOT, lines, mockSuite, runKeel } from "./helpers.js";

const suite = mockSuite();

const MODELS = [
  { id: "claude-opus-5-5" },
  { id: "claude-sonnet-5-5" },
  { id: "claude-next-1", displayName: "Claude Next", maxInputTokens: 300_000, maxOutputTokens: 20_000 },
];

describe("keel models", () => {
  it("lists catalog models, endpoint-only ones (noted) and catalog models the key cannot use (marked)", async () => {
    const { ws } = suite.fresh([]);
    // Its own server: the test takes it down to show the offline answer.
    const server = await startMockServer({ turns: [], models: MODELS });
    try {
      const r = await runKeel(["models", "--provider", "anthropic"], { server, ws });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      const out = r.stdout.split("\n");
      expect(out[0]).toBe(
        "anthropic: Anthropic · default claude-opus-5-5 · small claude-haiku-5-5 · checked 2026-12-01",
      );
      expect(out[1]).toMatch(
        /^ {2}models endpoint: 3 listed for this key \(asked \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/,
      );
      const row = (id: string) => out.find((l) => l.startsWith("  ") && l.includes(` ${id} `)) ?? "";
      expect(row("claude-opus-5-5")).toMatch(
        /^ {2}\* claude-opus-5-5 +Claude Opus 5\.5 +1M \/ 128K +\$4 \/ \$20 .*default$/,
      );
      expect(row("claude-fable-5-2")).toMatch(
        /^ {2}x claude-fable-5-2 .*not listed by the provider's models endpoint for this key$/,
      );
      expect(row("claude-next-1")).toMatch(
        /^ {2}\+ claude-next-1 +Claude Next +300K \/ 20K +price unknown +not in Keel's catalog: runs with anthropic's defaults \(300,000-token window\), prices unknown$/,
      );
      expect(r.stdout).toContain("x in the catalog but not listed for your key");
      expect(server.listings).toHaveLength(1);
      expect(server.requests).toHaveLength(0);
      expect(existsSync(discoveryCachePath(ws.home))).toBe(true);

      // A second run within the day answers from the cache without asking.
      const again = await runKeel(["models", "--provider", "anthropic"], { server, ws });
      expect(again.stdout).toMatch(
        /models endpoint: 3 listed for this key \(cached .*; --refresh asks again\)/,
      );
      expect(server.listings).toHaveLength(1);

      // Offline: the server is down; a refresh answers from the cache and says so.
      await server.close();
      const offline = await runKeel(["models", "--provider", "anthropic", "--refresh"], { server, ws });
      expect(offline.code).toBe(0);
      expect(offline.stdout).toMatch(
        /models endpoint unreachable \(.+\); showing its answer of \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
      );
      expect(offline.stdout).toMatch(/\+ claude-next-1 /);
      expect(offline.stdout).toMatch(/x claude-fable-5-2 /);
      expect(offline.stdout).toMatch(/\* claude-opus-5-5 /);
    } finally {
      await server.close();
    }
  });

  it("answers --json with every provider's listing, and marks what it could not ask", async () => {
    const { server, ws } = suite.fresh([]);
    server.setScenario({ turns: [], models: MODELS });
    const r = await runKeel(["models", "--json"], { server, ws });
    expect(r.code).toBe(0);
    const [doc] = [JSON.parse(r.stdout)] as {
      type: string;
      providers: {
        provider: string;
        endpoint: { state: string };
        models: { id: string; available?: boolean; inCatalog: boolean }[];
      }[];
    }[];
    expect(doc?.type).toBe("models");
    expect(doc?.providers.map((p) => p.provider)).toEqual(BUILTIN_PROVIDERS.map((p) => p.id));
    const anthropic = doc?.providers.find((p) => p.provider === "anthropic");
    expect(anthropic?.endpoint.state).toBe("fetched");
    expect(anthropic?.models.find((m) => m.id === "claude-next-1")).toMatchObject({
      inCatalog: false,
      available: true,
    });
    expect(doc?.providers.find((p) => p.provider === "openai")?.endpoint).toEqual({
      state: "no-key",
      keyEnv: "OPENAI_API_KEY",
    });
  });

  it("refuses arguments it does not take and an unknown provider, with exit code 2", async () => {
    const { server, ws } = suite.fresh([]);
    const extra = await runKeel(["models", "anthropic"], { server, ws });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain(
      'keel models takes no arguments (got "anthropic"); use --provider <name>.',
    );
    const nope = await runKeel(["models", "--provider", "nope"], { server, ws });
    expect(nope.code).toBe(2);
    expect(nope.stderr).toContain('Unknown provider "nope"');
  });
});

describe("models the catalog does not know", () => {
  it("runs print mode on an endpoint-only id with the provider's defaults and a warning", async () => {
    const { server, ws } = suite.fresh([{ text: "next says hi" }]);
    const r = await runKeel(["-p", "hi", "--model", "anthropic/claude-next-1", "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("next says hi\n");
    expect(r.stderr).toContain(
      "keel: warning: anthropic/claude-next-1 is not in Keel's model catalog; running it with anthropic's defaults",
    );
    expect(server.requests[0]?.body).toMatchObject({ model: "claude-next-1", max_tokens: 16_384 });
  });

  it("uses the limits `keel models` cached for it", async () => {
    const { server, ws } = suite.fresh([{ text: "ok" }]);
    server.setScenario({ turns: [{ text: "ok" }], models: MODELS });
    expect((await runKeel(["models", "--provider", "anthropic"], { server, ws })).code).toBe(0);
    const r = await runKeel(
      ["-p", "hi", "--model", "anthropic/claude-next-1", "--output-format", "stream-json", "--cwd", ws.repo],
      { server, ws },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("is listed by anthropic's models endpoint but not in Keel's model catalog");
    expect(server.requests[0]?.body).toMatchObject({ model: "claude-next-1", max_tokens: 20_000 });
    expect(lines(r.stdout)[0]).toMatchObject({ type: "init", model: "anthropic/claude-next-1" });
  });

  it("refuses a typo of a known id with the close match, before any request", async () => {
    const { server, ws } = suite.fresh([]);
    const r = await runKeel(["-p", "hi", "--model", "anthropic/claude-sonet-5-5", "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("did you mean anthropic/claude-sonnet-5-5?");
    expect(server.requests).toHaveLength(0);
  });
});

describe("defaults in --help and the READMEs", () => {
  const rootReadme = readFileSync(join(CLI_ROOT, "../../README.md"), "utf8");
  const aiReadme = readFileSync(join(CLI_ROOT, "../../packages/ai/README.md"), "utf8");

  it.each(BUILTIN_PROVIDERS.map((p) => [p.id, p.defaultModel] as const))(
    "names %s's default (%s) as the data file does",
    (provider, model) => {
      expect(HELP).toMatch(new RegExp(`^ +${provider} +${model.replace(/[./]/g, "\\$&")}$`, "m"));
      expect(aiReadme).toMatch(
        new RegExp(`^\\| \`${provider}\` \\| \`${model.replace(/[./]/g, "\\$&")}\` \\|`, "m"),
      );
    },
  );

  it("puts the Anthropic default in the root README's config example and Models bullet", () => {
    const anthropic = BUILTIN_PROVIDERS.find((p) => p.id === "anthropic")!;
    expect(rootReadme).toContain(`"model": "anthropic/${anthropic.defaultModel}"`);
    const bullet = rootReadme.slice(
      rootReadme.indexOf("- **Models**"),
      rootReadme.indexOf("- **Permissions**"),
    );
    expect(bullet).toContain(`anthropic/${anthropic.defaultModel}`);
  });
});
