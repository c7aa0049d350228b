// Grep, Glob and LS never follow a symlinked file or directory out of the workspace, nor into
// what a Read deny or ask rule covers; they say what they left out. With and without rules.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readGuardFor } from "../../src/permissions/read-scope.js";
import type { PermissionMode, PermissionRuleEntry } from "../../src/permissions/types.js";
import { createGlobTool, createGrepTool, createLsTool, type GrepDetails } from "../../src/tools/index.js";
import { context, makeTempDir, textOf } from "./helpers.js";

let root: string;
let cleanup: () => Promise<void>;
let ws: string;
let home: string;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir("keel-guard-"));
  ws = join(root, "ws");
  home = join(root, "home");
  await mkdir(join(ws, "src"), { recursive: true });
  await mkdir(join(ws, "secrets"), { recursive: true });
  await mkdir(join(home, ".ssh"), { recursive: true });
  await mkdir(join(root, "outside"), { recursive: true });
  await writeFile(join(ws, "src", "a.ts"), "MARK inside\n");
  await writeFile(join(ws, "secrets", "key.txt"), "MARK ws-secret\n");
  await writeFile(join(root, "outside", "secret.txt"), "MARK outside\n");
  await writeFile(join(home, ".ssh", "id_rsa"), "MARK ssh\n");
  await symlink(join(root, "outside", "secret.txt"), join(ws, "src", "innocent.ts"));
  await symlink(join(home, ".ssh", "id_rsa"), join(ws, "id-link"));
  await symlink(join(ws, "src", "a.ts"), join(ws, "alias.ts"));
  await symlink(join(root, "outside"), join(ws, "link-out"));
});
afterEach(() => cleanup());

function guard(rules: PermissionRuleEntry[] = [], mode: PermissionMode = "default") {
  return (walkRoot: string) =>
    readGuardFor({ mode, rules, workspace: ws, userHome: home, keelHome: join(home, ".keel") }, walkRoot);
}
const deny = (rule: string): PermissionRuleEntry => ({ rule, behavior: "deny", source: "user" });
const askRule = (rule: string): PermissionRuleEntry => ({ rule, behavior: "ask", source: "user" });
const allowRule = (rule: string): PermissionRuleEntry => ({ rule, behavior: "allow", source: "user" });

describe("walkers and symlinks", () => {
  it("Grep without rules reads links that stay inside and none that leave", async () => {
    const grep = createGrepTool({ cwd: ws });
    const result = await grep.execute({ pattern: "MARK", output_mode: "content" }, context());
    const text = textOf(result);
    expect(text).toContain("MARK inside");
    expect(text).toContain("alias.ts");
    expect(text).not.toContain("MARK outside");
    expect(text).not.toContain("MARK ssh");
    expect(text).toMatch(
      /Left out 3 entries it may not read: id-link \(a symbolic link to .*, outside the searched directory\)/,
    );
    expect(text).toMatch(/link-out \(a symbolic link to .*outside, outside the searched directory\)/);
    expect((result.details as GrepDetails).leftOut).toBe(3);
  });

  it("Grep under the kernel's rules: never past a deny rule or out, even in bypassPermissions", async () => {
    for (const mode of ["default", "bypassPermissions"] as const) {
      const grep = createGrepTool({
        cwd: ws,
        guard: guard([deny("Read(~/.ssh/**)"), deny("Read(secrets/**)")], mode),
      });
      const text = textOf(await grep.execute({ pattern: "MARK", output_mode: "content" }, context()));
      expect(text, mode).toContain("MARK inside");
      for (const secret of ["MARK outside", "MARK ssh", "MARK ws-secret"])
        expect(text, mode).not.toContain(secret);
      expect(text).toContain("id-link (denied by rule Read(~/.ssh/**))");
      expect(text).toContain("secrets (denied by rule Read(secrets/**))");
      expect(text).toMatch(
        /src\/innocent\.ts \(a symbolic link to .*outside\/secret\.txt, outside the workspace\)/,
      );
    }
  });

  it("an ask rule keeps the entry out of a search and says to Read it", async () => {
    const grep = createGrepTool({ cwd: ws, guard: guard([askRule("Read(secrets/**)")]) });
    const text = textOf(await grep.execute({ pattern: "MARK", output_mode: "content" }, context()));
    expect(text).not.toContain("ws-secret");
    expect(text).toContain("rule Read(secrets/**) asks before reading it; Read it directly");
  });

  it("a Read allow rule lets a link lead to what it covers", async () => {
    const grep = createGrepTool({ cwd: ws, guard: guard([allowRule(`Read(${join(root, "outside")}/**)`)]) });
    const text = textOf(await grep.execute({ pattern: "MARK", output_mode: "content" }, context()));
    expect(text).toContain("MARK outside");
    expect(text).not.toContain("MARK ssh");
  });

  it("a walk rooted outside (approved) reads what is inside its own root", async () => {
    const grep = createGrepTool({ cwd: ws, guard: guard() });
    const text = textOf(
      await grep.execute({ pattern: "MARK", path: join(root, "outside"), output_mode: "content" }, context()),
    );
    expect(text).toContain("MARK outside");
  });

  it("Glob and LS leave out the same entries", async () => {
    const rules = [deny("Read(secrets/**)")];
    const glob = createGlobTool({ cwd: ws, guard: guard(rules) });
    const globbed = textOf(await glob.execute({ pattern: "**/*" }, context()));
    expect(globbed).toContain("src/a.ts");
    expect(globbed).not.toMatch(/^src\/innocent\.ts$/m);
    expect(globbed).not.toContain("secrets/key.txt");
    expect(globbed).toContain("Left out");
    const ls = createLsTool({ cwd: ws, guard: guard(rules) });
    const listed = textOf(await ls.execute({}, context()));
    expect(listed).toContain("a.ts");
    expect(listed).not.toContain("key.txt");
    expect(listed).not.toMatch(/^\s+innocent\.ts$/m);
    expect(listed).toContain("secrets (denied by rule Read(secrets/**))");
  });
});
