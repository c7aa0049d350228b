// The vendor SDKs never write to the terminal: what they would print (a deprecated model's
// warning, a malformed chunk) reaches the caller's onLog, and a process streaming through Keel
// writes nothing to stdout or stderr it did not write itself.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { type ProviderLogLine, stream } from "@keel/ai";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { claudeModel, drain, gptModel, hello } from "./helpers.js";

const run = promisify(execFile);
const DIST = join(dirname(fileURLToPath(import.meta.url)), "../dist/index.js");
/** A model id @anthropic-ai/sdk 1.14 warns about on every request (its deprecated-model data). */
const DEPRECATED = "claude-sonnet-4-5-20250929";

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

function consoleSpies() {
  return (["log", "info", "warn", "error", "debug"] as const).map((name) =>
    vi.spyOn(console, name).mockImplementation(() => {}),
  );
}

describe("the SDKs' console output", () => {
  it("Anthropic's deprecation warning goes to onLog, not the console", async () => {
    const spies = consoleSpies();
    server.setScenario({ turns: [{ text: "fine" }] });
    const lines: ProviderLogLine[] = [];
    const { message } = await drain(
      stream(claudeModel({ id: DEPRECATED, baseUrl: server.anthropicBaseUrl }), hello, {
        apiKey: "test",
        onLog: (line) => lines.push(line),
      }),
    );
    expect(message.stopReason).toBe("stop");
    expect(lines).toEqual([
      expect.objectContaining({
        level: "warn",
        source: "@anthropic-ai/sdk",
        message: expect.stringContaining(`The model '${DEPRECATED}' is deprecated`),
      }),
    ]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it("OpenAI's malformed-chunk lines go to onLog, and the reply ends in a protocol error", async () => {
    const spies = consoleSpies();
    server.setScenario({ turns: [{ text: "a reply that breaks", malformedAfterEvents: 2 }] });
    const lines: ProviderLogLine[] = [];
    const { message } = await drain(
      stream(gptModel("openai-completions", { baseUrl: server.openaiBaseUrl }), hello, {
        apiKey: "test",
        retry: { maxRetries: 0 },
        onLog: (line) => lines.push(line),
      }),
    );
    expect(message.error?.type).toBe("protocol");
    expect(lines.map((l) => `${l.level} ${l.source} ${l.message.split("\n")[0]}`)).toEqual([
      expect.stringMatching(/^error openai Could not parse message into JSON: /),
      expect.stringMatching(/^error openai From chunk: /),
    ]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it("a process streaming through Keel prints nothing itself; its log gets the lines", async () => {
    server.setScenario({ turns: [{ text: "one" }, { text: "two breaks", malformedAfterEvents: 2 }] });
    const dir = mkdtempSync(join(tmpdir(), "keel-quiet-"));
    try {
      const script = join(dir, "run.mjs");
      writeFileSync(
        script,
        `import { writeFileSync } from "node:fs";
import { stream } from ${JSON.stringify(pathToFileURL(DIST).href)};
const lines = [];
const onLog = (line) => lines.push(line);
const hello = { messages: [{ role: "user", content: "Hi", timestamp: 1 }] };
const base = { reasoning: true, input: ["text"], contextWindow: 200000, maxOutput: 1000, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
const claude = { ...base, id: ${JSON.stringify(DEPRECATED)}, name: "c", api: "anthropic-messages", provider: "anthropic", baseUrl: process.env.ANTHROPIC_URL };
const gpt = { ...base, id: "gpt-test", name: "g", api: "openai-completions", provider: "openai", baseUrl: process.env.OPENAI_URL };
const a = await stream(claude, hello, { apiKey: "k", onLog }).result();
const b = await stream(gpt, hello, { apiKey: "k", onLog, retry: { maxRetries: 0 } }).result();
writeFileSync(process.env.OUT, JSON.stringify({ lines, stops: [a.stopReason, b.stopReason] }));
`,
      );
      const out = join(dir, "out.json");
      const { stdout, stderr } = await run(process.execPath, [script], {
        env: {
          ...process.env,
          ANTHROPIC_URL: server.anthropicBaseUrl,
          OPENAI_URL: server.openaiBaseUrl,
          OUT: out,
          ANTHROPIC_LOG: "",
          OPENAI_LOG: "",
        },
      });
      expect(stdout).toBe("");
      expect(stderr).toBe("");
      const written = JSON.parse(readFileSync(out, "utf8")) as { lines: ProviderLogLine[]; stops: string[] };
      expect(written.stops).toEqual(["stop", "error"]);
      expect(written.lines.map((l) => l.level)).toEqual(["warn", "error", "error"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
