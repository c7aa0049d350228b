// Rewind that can undo code: Keel's Edit/Write keep the files' versions in the session folder,
// and a rewind or tree move puts them back ("code", "both"), also after a resume; what Bash did
// is named, not undone; "conversation" leaves the files alone.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

function open(f: ReturnType<typeof faux>, session?: { mode: "resume"; session: string }) {
  return createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    permissionMode: "bypassPermissions",
    ...(session ? { session } : {}),
  }).then((r) => {
    if (r.isErr()) throw new Error(r.error.message);
    return r.value;
  });
}

const read = (name: string) => readFileSync(join(box.workspace, name), "utf8");

describe("code rewind", () => {
  it('"both" after a resume restores two edited files and removes a created one; Bash is named', async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "alpha\n");
    writeFileSync(join(box.workspace, "b.txt"), "beta\n");
    const f = faux({
      turns: [
        { text: "Noted." },
        {
          toolCalls: [
            { name: "Read", arguments: { path: "a.txt" } },
            { name: "Read", arguments: { path: "b.txt" } },
          ],
        },
        {
          toolCalls: [
            { name: "Edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
          ],
        },
        {
          toolCalls: [{ name: "Edit", arguments: { path: "b.txt", old_string: "beta", new_string: "BETA" } }],
        },
        { toolCalls: [{ name: "Write", arguments: { path: "new.txt", content: "fresh\n" } }] },
        { toolCalls: [{ name: "Bash", arguments: { command: "echo side > side.txt" } }] },
        { text: "Changed them." },
      ],
    });
    const agent = await open(f);
    await agent.prompt("remember this");
    await agent.prompt("shout both files");
    expect(read("a.txt")).toBe("ALPHA\n");
    expect(read("b.txt")).toBe("BETA\n");
    const file = agent.sessionFile!;
    // The versions live in the session's folder.
    expect(readdirSync(join(dirname(file), "file-history")).length).toBeGreaterThanOrEqual(3);
    await agent.close();

    const resumed = await open(f, { mode: "resume", session: file });
    const preview = resumed.fileChanges({ rewind: 1 })._unsafeUnwrap();
    expect(preview.files).toEqual(
      expect.arrayContaining([
        { path: "a.txt", action: "restore" },
        { path: "b.txt", action: "restore" },
        { path: "new.txt", action: "delete" },
      ]),
    );
    expect(preview.notRestored).toEqual(["Bash"]);
    const rewound = (await resumed.rewind(1, { restore: "both" }))._unsafeUnwrap();
    expect(rewound.prompt).toBe("shout both files");
    expect(rewound.files?.failed).toEqual([]);
    expect(read("a.txt")).toBe("alpha\n");
    expect(read("b.txt")).toBe("beta\n");
    expect(existsSync(join(box.workspace, "new.txt"))).toBe(false);
    // Bash's file is Bash's: not undone.
    expect(existsSync(join(box.workspace, "side.txt"))).toBe(true);
    expect(resumed.messages().map((m) => m.role)).toEqual(["user", "assistant"]);
    await resumed.close();
  });

  it('"code" restores the files and keeps the conversation; "conversation" keeps the files', async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "one\n");
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Read", arguments: { path: "a.txt" } }] },
        { toolCalls: [{ name: "Edit", arguments: { path: "a.txt", old_string: "one", new_string: "two" } }] },
        { text: "Done." },
      ],
    });
    const agent = await open(f);
    await agent.prompt("edit it");
    const before = agent.messages().length;
    const kept = (await agent.rewind(1, { restore: "conversation" }))._unsafeUnwrap();
    expect(kept.files).toBeUndefined();
    expect(read("a.txt")).toBe("two\n");
    expect(agent.messages()).toHaveLength(0);
    // Back to the branch that edited, then undo only the code.
    const head = agent
      .tree()
      .filter((n) => n.type === "message")
      .at(-1)!;
    (await agent.branch(head.id))._unsafeUnwrap();
    expect(agent.messages()).toHaveLength(before);
    const code = (await agent.rewind(1, { restore: "code" }))._unsafeUnwrap();
    expect(code.files?.files).toEqual([{ path: "a.txt", action: "restore" }]);
    expect(read("a.txt")).toBe("one\n");
    expect(agent.messages()).toHaveLength(before);
    await agent.close();
  });

  it("a tree move to the other branch takes that branch's edits back", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "base\n");
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Read", arguments: { path: "a.txt" } }] },
        {
          toolCalls: [{ name: "Edit", arguments: { path: "a.txt", old_string: "base", new_string: "left" } }],
        },
        { text: "Left." },
        { toolCalls: [{ name: "Read", arguments: { path: "a.txt" } }] },
        {
          toolCalls: [
            { name: "Edit", arguments: { path: "a.txt", old_string: "base", new_string: "right" } },
          ],
        },
        { text: "Right." },
      ],
    });
    const agent = await open(f);
    await agent.prompt("go left");
    const leftEnd = agent.tree().find((n) => n.isHead)!.id;
    await agent.rewind(1, { restore: "both" });
    expect(read("a.txt")).toBe("base\n");
    await agent.prompt("go right");
    expect(read("a.txt")).toBe("right\n");
    expect(agent.fileChanges({ entryId: leftEnd })._unsafeUnwrap().files).toEqual([
      { path: "a.txt", action: "restore" },
    ]);
    (await agent.branch(leftEnd, { restore: "both" }))._unsafeUnwrap();
    expect(read("a.txt")).toBe("left\n");
    await agent.close();
  });

  it("keeps no copy of a file over the bound and says it cannot restore it", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "big.txt"), "x".repeat(9 * 1024 * 1024));
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Read", arguments: { path: "big.txt", limit: 1 } }] },
        { toolCalls: [{ name: "Write", arguments: { path: "big.txt", content: "small\n" } }] },
        { text: "ok" },
      ],
    });
    const agent = await open(f);
    await agent.prompt("shrink it");
    const changes = agent.fileChanges({ rewind: 1 })._unsafeUnwrap();
    expect(changes.files).toEqual([]);
    expect(changes.unrestorable).toEqual([{ path: "big.txt", reason: "larger than 8 MB" }]);
    await agent.close();
  });

  it("on a session with no prompt yet, says there is nothing to rewind (not 'only 0 prompts')", async () => {
    box = sandbox();
    const agent = await open(faux({ turns: [{ text: "one" }] }));
    expect((await agent.rewind(1))._unsafeUnwrapErr().message).toBe(
      "Nothing to rewind yet: no prompt has been sent in this session.",
    );
    await agent.prompt("first");
    expect((await agent.rewind(2))._unsafeUnwrapErr().message).toBe(
      "Only 1 prompt can be rewound here; /rewind 1 goes back to the start.",
    );
    await agent.close();
  });
});
