// The one command registry through the real kernel: the clash rules the SDK states (built-in and
// the front end's names reserved before extensions load, first come otherwise, only the
// registrant removes, an extension cannot pass as built-in or host), a batch registered from the
// kernel side and unregistered again, listeners told of every change, list() JSON-safe, an unknown
// name refused with its close match, and a command's failure as an error.
import type { CommandSpec, ExtensionDefinition, ExtensionRuntime } from "@keel/extension-sdk";
import { defineExtension } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgent, type CodingAgentOptions, createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox | undefined;
let agent: CodingAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  box?.cleanup();
  box = undefined;
});

async function start(extensions: ExtensionDefinition[], options: Partial<CodingAgentOptions> = {}) {
  box = sandbox();
  const f = faux({ turns: [] });
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    extensions,
    discoverExtensions: false,
    ...options,
  });
  if (created.isErr()) throw new Error(created.error.message);
  agent = created.value;
  return agent;
}

const host = (name: string, message = `${name} ran`): CommandSpec => ({
  name,
  description: `the front end's ${name}`,
  source: { kind: "host" },
  run: async () => ({ message }),
});

function withCommands(id: string, names: string[], holder?: { runtime?: ExtensionRuntime }) {
  return defineExtension({
    id,
    commands: names.map((name) => ({
      name,
      description: `${id}'s ${name}`,
      run: () => ({ message: `${id} ${name}` }),
    })),
    lifecycle: {
      activate: (ctx) => {
        if (holder) holder.runtime = ctx as unknown as ExtensionRuntime;
      },
    },
  }) as ExtensionDefinition;
}

describe("the command registry", () => {
  it("reserves built-in and host names before extensions load; otherwise first come, and only the registrant removes", async () => {
    const holder: { runtime?: ExtensionRuntime } = {};
    const a = await start(
      [
        withCommands("first", ["deploy"], holder),
        withCommands("takes-host", ["resume"]),
        withCommands("second", ["ship"]),
      ],
      { commands: [host("resume"), host("help")] },
    );
    const diagnostics = a.diagnostics().map((d) => d.message);
    // The front end cannot take a built-in name either.
    expect(diagnostics).toContain('command "/help" is already provided by built-in');
    // An extension declaring a host name is refused whole, like one declaring a built-in name.
    expect(
      diagnostics.some((m) => m.startsWith('command "/resume" is already provided by the front end')),
    ).toBe(true);
    expect(a.commands.get("resume")?.source).toEqual({ kind: "host" });
    expect((await a.commands.run("/resume"))._unsafeUnwrap()).toEqual({ message: "resume ran" });
    expect(a.commands.get("ship")?.source).toEqual({ kind: "extension", owner: "second" });

    const rt = holder.runtime!;
    expect(rt.commands.add({ name: "ship", description: "d", run: () => undefined })).toEqual({
      ok: false,
      message: 'command "/ship" is already provided by extension second',
    });
    expect(rt.commands.add({ name: "quit", description: "d", run: () => undefined })).toEqual({ ok: true });
    // A batch from the kernel side (a project's command files) after it: first come.
    const off = a.commands.registerCommands([
      { ...host("quit"), source: { kind: "custom", owner: ".claude/commands/quit.md" } },
      {
        name: "review",
        description: "Review the diff",
        argumentHint: "[focus]",
        source: { kind: "custom", owner: ".claude/commands/review.md" },
        run: async (args) => ({ prompt: `Review ${args}` }),
      },
    ]);
    expect(a.diagnostics().map((d) => d.message)).toContain(
      'command "/quit" is already provided by extension first',
    );
    expect((await a.commands.run("/review the tests"))._unsafeUnwrap()).toEqual({
      prompt: "Review the tests",
    });
    // Only the registrant removes: the extension cannot take the batch's command away.
    expect(rt.commands.remove("review")).toBe(false);
    off();
    expect(a.commands.get("review")).toBeUndefined();
    expect(a.commands.get("quit")?.source).toEqual({ kind: "extension", owner: "first" });
  });

  it("an extension may say its command is a skill's, an MCP prompt's or a command file's, never built-in or host", async () => {
    const holder: { runtime?: ExtensionRuntime } = {};
    const a = await start([withCommands("probe", [], holder)]);
    const rt = holder.runtime!;
    expect(
      rt.commands.add({
        name: "skill:review",
        description: "Review",
        source: { kind: "skill", owner: "review" },
        run: () => ({ prompt: "review" }),
      }),
    ).toEqual({ ok: true });
    expect(a.commands.get("skill:review")?.source).toEqual({ kind: "skill", owner: "review" });
    const claimed = rt.commands.add({
      name: "sneaky",
      description: "d",
      source: { kind: "builtin" } as never,
      run: () => undefined,
    });
    expect(claimed).toMatchObject({ ok: false });
    expect(a.commands.get("sneaky")).toBeUndefined();
  });

  it("is live: listeners hear every change, list() is JSON and follows at once", async () => {
    const holder: { runtime?: ExtensionRuntime } = {};
    const a = await start([withCommands("probe", [], holder)]);
    const heard: string[][] = [];
    const stop = a.commands.subscribe(() => heard.push(a.commands.list().map((c) => c.name)));
    holder.runtime!.commands.add({
      name: "later",
      description: "Added later",
      argumentHint: "<x>",
      run: () => undefined,
    });
    expect(heard.at(-1)).toContain("later");
    const listed = a.commands.list();
    expect(JSON.parse(JSON.stringify(listed))).toEqual(listed);
    expect(listed.find((c) => c.name === "later")).toEqual({
      name: "later",
      description: "Added later",
      argumentHint: "<x>",
      source: { kind: "extension", owner: "probe" },
    });
    expect(listed.find((c) => c.name === "model")).toMatchObject({
      source: { kind: "builtin" },
      interactive: "model-picker",
    });
    holder.runtime!.commands.remove("later");
    expect(heard.at(-1)).not.toContain("later");
    stop();
    holder.runtime!.commands.add({ name: "unheard", description: "d", run: () => undefined });
    expect(heard.at(-1)).not.toContain("unheard");
  });

  it("refuses an unknown name with its close match; a command's failure is an error, a throw too", async () => {
    const holder: { runtime?: ExtensionRuntime } = {};
    const a = await start([withCommands("probe", [], holder)]);
    const unknown = await a.commands.run("/forc");
    expect(unknown._unsafeUnwrapErr()).toEqual({
      type: "unknown_command",
      name: "forc",
      suggestion: "fork",
      message: "Unknown command /forc. Did you mean /fork? /help lists the commands.",
    });
    expect((await a.commands.run("/zzzz"))._unsafeUnwrapErr()).toMatchObject({
      type: "unknown_command",
      name: "zzzz",
    });
    expect((await a.commands.run("/rewind many"))._unsafeUnwrapErr()).toEqual({
      type: "command",
      message: "Usage: /rewind [count ≥ 1]",
    });
    holder.runtime!.commands.add({
      name: "boom",
      description: "d",
      run: () => {
        throw new Error("no luck");
      },
    });
    expect((await a.commands.run("/boom"))._unsafeUnwrapErr()).toEqual({
      type: "command",
      message: "/boom failed: no luck",
    });
    // /help lists the registry as it is, the extension's command included.
    const help = (await a.commands.run("/help"))._unsafeUnwrap().message ?? "";
    expect(help).toContain("/boom — d");
    expect(help).toContain("/model [provider/id] — Show or switch the model");
  });
});
