// ~/.claude is the user's own: its CLAUDE.md reaches the system prompt and extensions are told
// where it is (skills, agents), unless config `claude.userFiles` is false, which leaves all of it alone.
import { defineExtension } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { fauxProvider, hosted, type KernelFixture, kernelFixture, startKernel } from "../../src/testing.js";

let f: KernelFixture;
afterEach(() => f?.cleanup());

async function session(): Promise<{ system: string; claudeHome: string | undefined }> {
  const seen: (string | undefined)[] = [];
  const probe = defineExtension({
    id: "probe",
    lifecycle: {
      activate(ctx) {
        seen.push(ctx.workspace.claudeHome);
        return {};
      },
    },
  });
  const model = fauxProvider({ turns: [{ text: "ok" }] });
  const agent = await startKernel({ ...f.options(model), extensions: [hosted(probe)] });
  await agent.prompt("hi");
  await agent.close();
  return { system: JSON.stringify(model.requests[0]!.body.system), claudeHome: seen[0] };
}

describe("~/.claude", () => {
  it("is read by default and left alone with claude.userFiles false", async () => {
    f = kernelFixture({ name: "claude-home" });
    f.write("home/.claude/CLAUDE.md", "Personal: call me Sam.");
    const on = await session();
    expect(on.system).toContain("Personal: call me Sam.");
    expect(on.claudeHome).toBe(`${f.home}/.claude`);
    f.write("home/.keel/config.json", JSON.stringify({ claude: { userFiles: false } }));
    const off = await session();
    expect(off.system).not.toContain("call me Sam");
    expect(off.claudeHome).toBeUndefined();
  });
});
