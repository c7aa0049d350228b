// A 10-turn scripted coding task against the faux provider in a real git repo: read, grep, edit,
// bash, write, glob, ls and a commit leave the repository in exactly the expected state.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

describe("a scripted coding task", () => {
  it("leaves the repo exactly as expected", async () => {
    box = sandbox();
    const repo = box.workspace;
    mkdirSync(join(repo, "src"));
    writeFileSync(
      join(repo, "src/math.js"),
      "export const add = (a, b) => a + b;\nexport const sub = (a, b) => a + b;\n",
    );
    writeFileSync(
      join(repo, "test.js"),
      'import { add, sub } from "./src/math.js";\nif (add(2, 2) !== 4 || sub(5, 3) !== 2) { console.log("FAIL"); process.exit(1); }\nconsole.log("ok");\n',
    );
    writeFileSync(join(repo, "package.json"), '{ "type": "module" }\n');
    writeFileSync(join(repo, ".gitignore"), "node_modules\n");
    git(repo, "add", "-A");
    git(repo, "-c", "user.email=t@keel.dev", "-c", "user.name=T", "commit", "-qm", "start");
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ permissions: { allow: ["Bash(node test.js)", "Bash(git add:*)", "Bash(git -c:*)"] } }),
    );

    const call = (name: string, args: Record<string, unknown>) => ({
      toolCalls: [{ name, arguments: args }],
    });
    const f = faux({
      turns: [
        call("Read", { path: "src/math.js" }),
        call("Grep", { pattern: "sub", output_mode: "content" }),
        call("Bash", { command: "node test.js" }),
        call("Edit", {
          path: "src/math.js",
          old_string: "sub = (a, b) => a + b",
          new_string: "sub = (a, b) => a - b",
        }),
        call("Bash", { command: "node test.js" }),
        call("Write", { path: "src/mul.js", content: "export const mul = (a, b) => a * b;\n" }),
        call("Glob", { pattern: "src/*.js" }),
        call("LS", {}),
        call("Bash", {
          command:
            "git add -A && git -c user.email=k@keel.dev -c user.name=Keel commit -qm 'Fix sub, add mul'",
        }),
        { text: "Fixed sub, added mul and committed." },
      ],
    });
    const created = await createCodingAgent({
      cwd: repo,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      permissionMode: "acceptEdits",
    });
    if (created.isErr()) throw new Error(created.error.message);
    const agent = created.value;
    const results: { tool: string; isError: boolean; text: string }[] = [];
    agent.subscribe((e) => {
      if (e.type === "tool_end") results.push({ tool: e.toolName, isError: e.isError, text: e.text });
    });
    const summary = (await agent.prompt("Fix the failing test, add mul, commit."))._unsafeUnwrap();
    await agent.close();

    expect(summary.stopReason).toBe("stop");
    expect(summary.turns).toBe(10);
    expect(results.map((r) => [r.tool, r.isError])).toEqual([
      ["Read", false],
      ["Grep", false],
      ["Bash", true], // the test fails before the fix
      ["Edit", false],
      ["Bash", false],
      ["Write", false],
      ["Glob", false],
      ["LS", false],
      ["Bash", false],
    ]);
    expect(results[2]!.text).toContain("FAIL");
    expect(results[4]!.text).toContain("ok");
    expect(results[6]!.text).toContain("src/mul.js");
    expect(readFileSync(join(repo, "src/math.js"), "utf8")).toBe(
      "export const add = (a, b) => a + b;\nexport const sub = (a, b) => a - b;\n",
    );
    expect(readFileSync(join(repo, "src/mul.js"), "utf8")).toBe("export const mul = (a, b) => a * b;\n");
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(repo, "log", "--format=%s")).toBe("Fix sub, add mul\nstart");
    expect(git(repo, "show", "--name-only", "--format=", "HEAD").split("\n").sort()).toEqual([
      "src/math.js",
      "src/mul.js",
    ]);
  });
});
