// MCP results as Keel results: the size cap with the whole result on disk, binary kept on disk,
// structured content checked against the output schema.
import { readFileSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { failureResult, toToolResult } from "../src/catalog/results.js";
import { classify } from "../src/connection/errors.js";
import { tempDir } from "./helpers/servers.js";

const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});
const tool: Tool = { name: "t", inputSchema: { type: "object" } };
function context(extra: Partial<Parameters<typeof toToolResult>[1]> = {}) {
  const dir = tempDir();
  dirs.push(dir);
  return { server: "s", tool, maxChars: 1000, saveDir: dir.path, callId: "call-1", ...extra };
}
const text = (r: { content: { type: string; text?: string }[] }) =>
  r.content.map((c) => c.text ?? `<${c.type}>`).join("|");

describe("tool results", () => {
  it("cuts text past the cap and keeps the whole result on disk", () => {
    const big = "x".repeat(2500);
    const result = toToolResult({ content: [{ type: "text", text: big }] }, context());
    expect(result.content[0]).toEqual({ type: "text", text: "x".repeat(1000) });
    expect(text(result)).toContain("[Result cut at 1000 of 2500 characters. The whole result is in ");
    expect(result.details?.truncated).toEqual({ shownChars: 1000, totalChars: 2500 });
    expect(readFileSync(result.details!.savedTo!, "utf8")).toBe(big);
  });

  it("keeps audio and non-image blobs on disk and says where", () => {
    const data = Buffer.from("RIFF....WAVE").toString("base64");
    const result = toToolResult(
      {
        content: [
          { type: "audio", data, mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.pdf", blob: data, mimeType: "application/pdf" } },
          { type: "resource", resource: { uri: "mem://pic", blob: data, mimeType: "image/png" } },
        ],
      },
      context(),
    );
    const saved = [...text(result).matchAll(/saved to (\S+)\]/g)].map((m) => m[1]!);
    expect(saved).toHaveLength(2);
    // The size counts decoded bytes: 13 bytes are 20 base64 characters, two of them padding.
    const odd = Buffer.from("RIFF....WAVE!").toString("base64");
    expect(odd).toHaveLength(20);
    const sized = toToolResult({ content: [{ type: "audio", data: odd, mimeType: "audio/wav" }] }, context());
    expect(text(sized)).toContain("[audio the model cannot hear (audio/wav), 13 bytes, saved to ");
    expect(readFileSync(saved[0]!).toString()).toBe("RIFF....WAVE");
    expect(result.content[2]).toEqual({ type: "image", data, mimeType: "image/png" });
  });

  it("checks structured content against the output schema", () => {
    const typed: Tool = {
      ...tool,
      outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    };
    const good = toToolResult({ content: [], structuredContent: { n: 1 } }, context({ tool: typed }));
    expect(good.isError).toBeUndefined();
    expect(text(good)).toBe('{"n":1}');
    const bad = toToolResult(
      { content: [{ type: "text", text: "n is one" }], structuredContent: { n: "one" } },
      context({ tool: typed }),
    );
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/does not match the tool's output schema/);
    const missing = toToolResult(
      { content: [{ type: "text", text: "no structure" }] },
      context({ tool: typed }),
    );
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("returned no structured result");
  });

  it("says what a failure means for the model's next step", () => {
    expect(text(failureResult("s", "t", { type: "disconnected", message: "gone" }))).toContain(
      "whether it took effect is unknown",
    );
    expect(failureResult("s", "t", { type: "timeout", message: "slow" }).isError).toBe(true);
    expect(text(failureResult("s", "t", { type: "protocol_error", message: "Unknown tool" }))).toBe(
      'MCP server "s" refused t: Unknown tool',
    );
  });

  it("says an error's MCP prefix once, where the server's message already carries it", () => {
    const failure = classify(new McpError(-32602, "MCP error -32602: Input validation error: a is required"));
    expect(failure).toMatchObject({
      type: "protocol_error",
      code: -32602,
      message: "MCP error -32602: Input validation error: a is required",
    });
    expect(text(failureResult("s", "add", failure))).toBe(
      'MCP server "s" refused add: MCP error -32602: Input validation error: a is required',
    );
  });
});
