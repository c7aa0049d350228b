// Trust that means what it says, through the kernel: /init writing AGENTS.md leaves the project
// trusted and the next session reads the new file; a changed MCP header makes the next session
// treat the project as changed, say what changed, and /trust shows the diff; a project skill's
// allowed-tools count only as approved.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is what a project writes in .mcp.json, not a template
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

async function open(box: Sandbox, turns: Parameters<typeof faux>[0]["turns"], extra: object = {}) {
  const f = faux({ turns });
  const agent = (
    await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      discoverExtensions: false,
      ...extra,
    })
  )._unsafeUnwrap();
  return { agent, f };
}

const systemOf = (body: Record<string, unknown>) => JSON.stringify(body.system ?? "");

describe("trust is granted to the folder", () => {
  it("/init writes AGENTS.md; the next session is still trusted and reads it", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "AGENTS.md"), "Old notes.\n");
    const first = await open(
      box,
      [
        { toolCalls: [{ name: "Read", arguments: { path: "AGENTS.md" } }] },
        {
          toolCalls: [
            { name: "Write", arguments: { path: "AGENTS.md", content: "Run npm test before you commit.\n" } },
          ],
        },
        { text: "Wrote AGENTS.md." },
      ],
      { permissionMode: "acceptEdits" },
    );
    (await first.agent.commands.run("/trust yes"))._unsafeUnwrap();
    // /init hands the front end its prompt; the model answers it by writing AGENTS.md.
    const init = (await first.agent.commands.run("/init"))._unsafeUnwrap().prompt ?? "";
    expect(init).toContain("AGENTS.md");
    await first.agent.prompt(init);
    await first.agent.close();
    expect(readFileSync(join(box.workspace, "AGENTS.md"), "utf8")).toBe("Run npm test before you commit.\n");

    const second = await open(box, [{ text: "hi" }]);
    expect(second.agent.diagnostics().filter((d) => /changed|not trusted/.test(d.message))).toEqual([]);
    expect((await second.agent.trustPreview()).status).toBe("trusted");
    await second.agent.prompt("hello");
    await second.agent.close();
    expect(systemOf(second.f.requests[0]!.body)).toContain("Run npm test before you commit.");
  });

  it("a changed MCP server header: the next session says what changed, and /trust shows the diff", async () => {
    box = sandbox();
    const mcp = (headers: Record<string, string>) =>
      writeFileSync(
        join(box.workspace, ".mcp.json"),
        JSON.stringify({ mcpServers: { docs: { type: "http", url: "https://docs.example/mcp", headers } } }),
      );
    mcp({ "X-Team": "core" });
    const first = await open(box, []);
    const preview = (await first.agent.commands.run("/trust"))._unsafeUnwrap().message ?? "";
    // The preview names the headers a server is sent, and lists the .mcp.json server once.
    expect(preview).toContain("docs: connects to https://docs.example/mcp sending headers X-Team: core");
    expect(preview.match(/docs\.example/g)).toHaveLength(1);
    (await first.agent.commands.run("/trust yes"))._unsafeUnwrap();
    await first.agent.close();

    mcp({ "X-Team": "core", Authorization: "Bearer ${GITHUB_TOKEN}" });
    const second = await open(box, []);
    const notice = second.agent.diagnostics().find((d) => d.message.includes("changed since you trusted it"));
    expect(notice?.message).toContain(
      '~ .mcp.json server docs: headers.Authorization: (none) → "Bearer ${GITHUB_TOKEN}"',
    );
    const again = (await second.agent.commands.run("/trust"))._unsafeUnwrap().message ?? "";
    expect((await second.agent.trustPreview()).status).toBe("changed");
    expect(again).toContain(
      `${box.workspace} changed since you trusted it, in what it runs or widens automatically:`,
    );
    expect(again).toContain(
      '~ .mcp.json server docs: headers.Authorization: (none) → "Bearer ${GITHUB_TOKEN}"',
    );
    expect(again).toContain("sending headers X-Team: core, Authorization: Bearer ${GITHUB_TOKEN}");
    await second.agent.close();
  });
});

describe("what extensions record as approved", () => {
  /** An extension that would honour one item from the project, and reports what it was given. */
  function approver(value: () => string, seen: Record<string, string>[]): ExtensionDefinition {
    return {
      id: "approver",
      trustApprovals: () => ({ "item x": value() }),
      lifecycle: {
        activate: (ctx: { workspace: { approved: Readonly<Record<string, string>> } }) => {
          seen.push({ ...ctx.workspace.approved });
          return {};
        },
      },
    } as ExtensionDefinition;
  }

  it("is recorded by /trust yes, handed back as workspace.approved, and a change shows in /trust", async () => {
    box = sandbox();
    let item = "Bash(ls)";
    const seen: Record<string, string>[] = [];
    const extensions = [approver(() => item, seen)];
    const first = await open(box, [], { extensions });
    (await first.agent.commands.run("/trust yes"))._unsafeUnwrap();
    await first.agent.close();
    const second = await open(box, [], { extensions });
    expect(seen.at(-1)).toEqual({ "item x": "Bash(ls)" });
    item = "Bash";
    const shown = (await second.agent.commands.run("/trust"))._unsafeUnwrap().message ?? "";
    expect((await second.agent.trustPreview()).status).toBe("trusted");
    expect(shown).toContain("extensions would now honour items you did not approve");
    expect(shown).toContain('~ approver: item x: "Bash(ls)" → "Bash"');
    await second.agent.close();
    expect(seen[0]).toEqual({});
  });
});
