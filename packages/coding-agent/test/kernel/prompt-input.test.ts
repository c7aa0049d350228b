// What comes with a prompt: @file content (bounded), @folder listings, images as image blocks
// (refused for a model without vision, with nothing sent), deny rules still holding; and `!cmd`,
// the user's own command, run without asking, its output in the conversation for the next prompt.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createCodingAgent,
  MAX_MENTION_BYTES,
  promptParts,
  type ToolApprovalRequest,
} from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

// A 1×1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

async function open(f: ReturnType<typeof faux>, extra: Record<string, unknown> = {}) {
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    ...extra,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return created.value;
}

describe("@mentions", () => {
  it("attaches files and folder listings, leaves mail addresses alone, and the editor text stays the prompt", async () => {
    box = sandbox();
    mkdirSync(join(box.workspace, "src"));
    writeFileSync(join(box.workspace, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(box.workspace, "src", "b.ts"), "export const b = 2;\n");
    writeFileSync(join(box.workspace, "big.log"), "y".repeat(MAX_MENTION_BYTES + 100));
    const f = faux({ turns: [{ text: "Seen." }] });
    const agent = await open(f);
    const notes: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "diagnostic") notes.push(e.diagnostic.message);
    });
    await agent.prompt("look at @src/a.ts, the folder @src and @big.log; mail me@example.com");
    const body = f.requests[0]!.raw;
    expect(body).toContain('<file path=\\"src/a.ts\\">\\nexport const a = 1;\\n</file>');
    expect(body).toContain('<directory path=\\"src\\">\\na.ts\\nb.ts\\n</directory>');
    expect(body).toContain(`truncated=\\"first ${MAX_MENTION_BYTES} of ${MAX_MENTION_BYTES + 100} bytes\\"`);
    expect(notes).toContain("attached src/a.ts (1 lines)");
    const user = agent.messages()[0]!;
    expect(user.role === "user" && promptParts(user.content)).toEqual({
      text: "look at @src/a.ts, the folder @src and @big.log; mail me@example.com",
      attached: ["src/a.ts", "src/", "big.log"],
    });
    await agent.close();
  });

  it("does not attach what a deny rule forbids reading", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, ".env"), "SECRET=1\n");
    mkdirSync(box.home, { recursive: true });
    writeFileSync(join(box.home, "config.json"), JSON.stringify({ permissions: { deny: ["Read(.env)"] } }));
    const f = faux({ turns: [{ text: "ok" }] });
    const agent = await open(f);
    await agent.prompt("what is in @.env");
    expect(f.requests[0]!.raw).not.toContain("SECRET");
    await agent.close();
  });

  it("sends an image as an image block, and refuses it for a model without vision", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "shot.png"), PNG);
    const f = faux({ turns: [{ text: "A pixel." }] });
    const agent = await open(f);
    await agent.prompt("what is @shot.png");
    const content = (f.requests[0]!.body.messages as { content: { type: string; source?: unknown }[] }[])[0]!
      .content;
    expect(content.map((c) => c.type)).toEqual(["text", "image"]);
    expect(content[1]!.source).toMatchObject({ type: "base64", media_type: "image/png" });
    await agent.close();

    const blind = faux({ turns: [{ text: "never" }] }, { input: ["text"], name: "Blind" });
    const other = await open(blind);
    const refused = await other.prompt({
      text: "and this one?",
      images: [{ type: "image", data: PNG.toString("base64"), mimeType: "image/png" }],
    });
    expect(refused._unsafeUnwrapErr().message).toContain("does not accept images");
    expect(blind.requests).toHaveLength(0);
    await other.close();
  });
});

describe("!cmd", () => {
  it("runs a read-only command at once and the model sees its output with the next prompt", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "hello.txt"), "hi\n");
    const f = faux({ turns: [{ text: "I see hello.txt." }] });
    const agent = await open(f);
    const ran = (await agent.runShell("ls"))._unsafeUnwrap();
    expect(ran.exitCode).toBe(0);
    expect(ran.output).toContain("hello.txt");
    await agent.prompt("what did that show?");
    expect(f.requests[0]!.raw).toContain("<bash-input>ls</bash-input>");
    expect(f.requests[0]!.raw).toContain("hello.txt");
    // It is not a prompt: /rewind goes back before "what did that show?", not before ls.
    expect((await agent.rewind(1))._unsafeUnwrap().prompt).toBe("what did that show?");
    await agent.close();
  });

  it("runs the user's command with side effects without asking, whatever the rules say", async () => {
    box = sandbox();
    const asked: ToolApprovalRequest[] = [];
    const f = faux({ turns: [] });
    const agent = await open(f, {
      // Rules and approvals are for the model's calls; the user typed this one.
      rules: { deny: ["Bash(touch:*)"] },
      ui: {
        approve: async (r: ToolApprovalRequest) => {
          asked.push(r);
          return { decision: "deny" };
        },
      },
    });
    const ran = (await agent.runShell("touch made.txt && echo made"))._unsafeUnwrap();
    expect(asked).toEqual([]);
    expect(ran.exitCode).toBe(0);
    expect(existsSync(join(box.workspace, "made.txt"))).toBe(true);
    expect(agent.messages()).toHaveLength(1);
    await agent.close();
  });
});
