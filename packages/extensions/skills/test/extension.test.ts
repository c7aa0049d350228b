// The extension against the SDK's test runtime: the catalog it adds, the Skill tool, the
// /skill: and /skills commands, allowed-tools, live reload of commands and compaction.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CatalogInventory } from "@keel/extension-sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { skillsExtension } from "../src/index.js";
import { skillMd, type Tree, tree, writeSkill } from "./fixtures.js";
import { type Activated, activate, text } from "./harness.js";

let t: Tree;
let active: Activated | undefined;
beforeEach(() => {
  t = tree();
  vi.stubEnv("HOME", t.home);
});
afterEach(async () => {
  await active?.close();
  active = undefined;
  vi.unstubAllEnvs();
  t.cleanup();
});

const userRoot = () => join(t.keelHome, "skills");

async function entriesOf(a: Activated) {
  const inv = (await a.catalogs[0]!.discover(a.runtime as never, {
    signal: new AbortController().signal,
  })) as CatalogInventory;
  return Array.isArray(inv) ? { entries: inv, instructions: undefined } : inv;
}

describe("the catalog", () => {
  it("lists model-invocable skills with one-line descriptions, within 1% of the window", async () => {
    writeSkill(userRoot(), "pdf", skillMd({ name: "pdf", description: "Read PDFs.\n  Use for forms." }));
    writeSkill(
      userRoot(),
      "deploy",
      skillMd({ name: "deploy", description: "Deploy.", "disable-model-invocation": "true" }),
    );
    active = await activate(t, { contextWindow: 100_000 });
    expect(active.catalogs).toHaveLength(1);
    const catalog = active.catalogs[0]!;
    expect(catalog).toMatchObject({ id: "skills", group: "skills", kind: "skills" });
    expect(catalog.notice).toEqual({
      heading: expect.stringContaining("Skill tool"),
      describe: true,
      budgetChars: 4000,
    });
    const { entries, instructions } = await entriesOf(active);
    expect(entries.map((e) => [e.name, e.summary, e.executable])).toEqual([
      ["pdf", "Read PDFs. Use for forms.", false],
    ]);
    expect(instructions).toContain('Skill {"skill": "<name>"}');
  });

  it("tells the catalog to rediscover when the skills change on disk", async () => {
    writeSkill(userRoot(), "a", skillMd({ name: "a", description: "A." }));
    active = await activate(t, { config: { watch: true } });
    let invalidated = 0;
    active.catalogs[0]!.subscribe!(() => void invalidated++, active.runtime as never);
    // The first model call arms the watch at once (otherwise a timer does, a second later).
    await active.hook("afterModelCall", { turn: 1 });
    await (active.instance.set as unknown as { watcher: { ready: Promise<void> } }).watcher.ready;
    // Armed, it rescans once to catch what changed before it; then only real changes count.
    await vi.waitFor(() => expect(invalidated).toBe(1));
    invalidated = 0;
    writeSkill(userRoot(), "b", skillMd({ name: "b", description: "B." }));
    await vi.waitFor(() => expect(invalidated).toBeGreaterThan(0), { timeout: 5000 });
    expect((await entriesOf(active)).entries.map((e) => e.name)).toEqual(["a", "b"]);
    // The command set follows.
    await vi.waitFor(() => expect([...active!.commands.keys()].sort()).toEqual(["skill:a", "skill:b"]), {
      timeout: 5000,
    });
    rmSync(join(userRoot(), "a"), { recursive: true });
    await vi.waitFor(() => expect([...active!.commands.keys()]).toEqual(["skill:b"]), { timeout: 5000 });
  });

  it("reports diagnostics once, naming the file", async () => {
    writeSkill(userRoot(), "bad", skillMd({ name: "bad" }));
    active = await activate(t);
    expect(active.reports).toEqual([
      { level: "error", message: expect.stringContaining(join(userRoot(), "bad", "SKILL.md")) },
    ]);
    active.instance.set.invalidate();
    await active.instance.set.get();
    expect(active.reports).toHaveLength(1);
  });
});

describe("the Skill tool", () => {
  beforeEach(() => {
    writeSkill(
      userRoot(),
      "pdf",
      skillMd(
        { name: "pdf", description: "PDFs.", "allowed-tools": "Bash(pdftotext:*) Read" },
        "# PDF\nRun scripts/extract.py.",
      ),
      { "scripts/extract.py": "print('x')\n", "references/FORMS.md": "# Forms\n" },
    );
    writeFileSync(join(t.root, "secret.txt"), "TOP SECRET");
  });

  it("returns the body without front matter, wrapped with the name and its files", async () => {
    active = await activate(t);
    const result = await active.skill({ skill: "pdf" });
    const out = text(result);
    expect(result.isError).toBeUndefined();
    expect(out).toContain('<skill name="pdf"');
    expect(out).toContain("# PDF\nRun scripts/extract.py.");
    expect(out).not.toContain("allowed-tools:");
    expect(out).toContain("  references/FORMS.md\n  scripts/extract.py");
    expect(active.runtime.state.get().loaded).toEqual([{ name: "pdf" }]);
  });

  it("reads a referenced file and refuses `..` and a symlink out", async () => {
    symlinkSync(join(t.root, "secret.txt"), join(userRoot(), "pdf", "references", "leak.md"));
    active = await activate(t);
    expect(text(await active.skill({ skill: "pdf", path: "references/FORMS.md" }))).toContain("# Forms");
    for (const path of ["../../../../secret.txt", "references/leak.md"]) {
      const r = await active.skill({ skill: "pdf", path });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("refused");
      expect(text(r)).not.toContain("TOP SECRET");
    }
  });

  it("pre-approves allowed-tools for the run, and says so", async () => {
    active = await activate(t);
    const out = text(await active.skill({ skill: "pdf" }));
    expect(active.allowed).toEqual([
      { rules: ["Bash(pdftotext:*)", "Read"], reason: "skill pdf (allowed-tools)" },
    ]);
    expect(out).toContain("Pre-approved for the rest of this run by the skill: Bash(pdftotext:*) Read");
  });

  it("says when allowed-tools could not be applied", async () => {
    active = await activate(t, { inRun: false });
    expect(text(await active.skill({ skill: "pdf" }))).toContain(
      "allowed-tools of pdf not applied: no run is going on",
    );
  });

  it("names similar skills for an unknown one and refuses user-only skills", async () => {
    writeSkill(
      userRoot(),
      "deploy",
      skillMd({ name: "deploy", description: "D.", "disable-model-invocation": "true" }),
    );
    active = await activate(t);
    const unknown = await active.skill({ skill: "pd" });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe('No skill named "pd". Similar: pdf.');
    const userOnly = await active.skill({ skill: "deploy" });
    expect(userOnly.isError).toBe(true);
    expect(text(userOnly)).toContain("/skill:deploy");
    // Accepts the catalog's toolRef form too.
    expect(text(await active.skill({ skill: "skills:pdf" }))).toContain('<skill name="pdf"');
  });
});

describe("commands", () => {
  it("/skill:name args fills $ARGUMENTS and applies allowed-tools when the run starts", async () => {
    writeSkill(
      userRoot(),
      "fix",
      skillMd(
        { name: "fix", description: "Fix an issue.", "allowed-tools": "Bash(gh issue view:*)" },
        "Fix issue $ARGUMENTS now.",
      ),
    );
    writeSkill(
      userRoot(),
      "hidden",
      skillMd({ name: "hidden", description: "H.", "user-invocable": "false" }),
    );
    active = await activate(t);
    expect([...active.commands.keys()]).toEqual(["skill:fix"]);
    expect(active.commands.get("skill:fix")?.description).toBe("Fix an issue.");
    const result = await active.command("skill:fix", "1234 urgent");
    expect(result).toEqual({ prompt: expect.stringContaining("Fix issue 1234 urgent now.") });
    expect(active.allowed).toEqual([]);
    await active.hook("runStart", { prompt: "x" });
    expect(active.allowed).toEqual([
      { rules: ["Bash(gh issue view:*)"], reason: "skill fix (allowed-tools)" },
    ]);
    expect(active.runtime.state.get().loaded).toEqual([{ name: "fix", args: "1234 urgent" }]);
  });

  it("/skill:name works for a user-only skill, and the model may then read its files", async () => {
    writeSkill(
      userRoot(),
      "deploy",
      skillMd({ name: "deploy", description: "D.", "disable-model-invocation": "true" }, "Ship it."),
      {
        "checklist.md": "- [ ] tests",
      },
    );
    active = await activate(t);
    expect(text(await active.command("skill:deploy"))).toContain("Ship it.");
    expect(text(await active.skill({ skill: "deploy", path: "checklist.md" }))).toContain("- [ ] tests");
  });

  it("/skills shows the cut entries when 300 skills exceed the budget", async () => {
    for (let i = 0; i < 300; i++) {
      const name = `skill-${String(i).padStart(3, "0")}`;
      writeSkill(
        userRoot(),
        name,
        skillMd({ name, description: `Does task number ${i} when the user asks for it, thoroughly.` }),
      );
    }
    active = await activate(t, { contextWindow: 200_000 });
    const out = text(await active.command("skills"));
    const cutLines = out.split("\n").filter((l) => l.includes("cut from the catalog"));
    expect(cutLines.length).toBeGreaterThan(0);
    expect(out).toMatch(
      new RegExp(
        `300 skills: ${300 - cutLines.length} in the model's catalog, ${cutLines.length} cut from it by the budget`,
      ),
    );
    expect(out).toContain("of 8000 characters");
    // The cut ones are the last by name: the catalog lists in name order until the budget ends.
    expect(cutLines[0]).toContain(`skill-${String(300 - cutLines.length).padStart(3, "0")}`);
    expect(out).toContain("~/.keel/skills");
  });

  it("/skills says an untrusted project's skills are not read", async () => {
    writeSkill(join(t.project, ".claude", "skills"), "proj", skillMd({ name: "proj", description: "P." }));
    active = await activate(t, { trusted: false });
    const out = text(await active.command("skills"));
    expect(out).toContain("No skills found.");
    expect(out).toContain("This project is not trusted");
  });
});

describe("compaction", () => {
  it("re-attaches loaded skills, most recent first, bounded", async () => {
    writeSkill(userRoot(), "a", skillMd({ name: "a", description: "A." }, "Body of A."));
    writeSkill(userRoot(), "b", skillMd({ name: "b", description: "B." }, "Body of B with $ARGUMENTS."));
    writeSkill(userRoot(), "big", skillMd({ name: "big", description: "Big." }, "z".repeat(150_000)));
    active = await activate(t);
    await active.skill({ skill: "big" });
    await active.skill({ skill: "a" });
    await active.command("skill:b", "x y");
    await active.hook("compaction", { reason: "threshold", tokensBefore: 1, tokensAfter: 1 });
    expect(active.notices).toHaveLength(1);
    const notice = active.notices[0]!;
    expect(notice.indexOf("Body of B with x y.")).toBeLessThan(notice.indexOf("Body of A."));
    expect(notice).toContain("[truncated at 20000 characters");
    expect(notice.length).toBeLessThan(100_000 + 2000);
    expect(active.runtime.state.get().loaded.map((l) => l.name)).toEqual(["big", "a", "b"]);
  });

  it("re-attaches nothing when no skill was loaded", async () => {
    active = await activate(t);
    await active.hook("compaction", { reason: "manual", tokensBefore: 1, tokensAfter: 1 });
    expect(active.notices).toEqual([]);
  });
});

describe("trusted project skills", () => {
  it("come from .keel, .agents and .claude between cwd and the project root", async () => {
    const sub = join(t.project, "apps", "web");
    mkdirSync(sub, { recursive: true });
    writeSkill(join(sub, ".claude", "skills"), "web", skillMd({ name: "web", description: "Web." }));
    writeSkill(join(t.project, ".agents", "skills"), "root", skillMd({ name: "root", description: "Root." }));
    active = await activate(t, { trusted: true, cwd: sub });
    expect((await entriesOf(active)).entries.map((e) => e.name)).toEqual(["root", "web"]);
    expect(text(await active.command("skills"))).toMatch(/web\s+apps\/web\/\.claude\/skills/);
  });
});

describe("the trust preview", () => {
  it("lists what a project's skills would add and pre-approve, before trust", async () => {
    writeSkill(
      join(t.project, ".claude", "skills"),
      "release",
      skillMd({
        name: "release",
        description: "Cut a release.",
        "allowed-tools": "Bash(git push:*) Bash(npm publish:*)",
      }),
    );
    writeSkill(
      join(t.project, ".agents", "skills"),
      "notes",
      skillMd({ name: "notes", description: "Notes." }),
    );
    writeSkill(join(t.project, ".keel", "skills"), "broken", skillMd({ name: "broken" }));
    writeSkill(
      join(t.keelHome, "skills"),
      "mine",
      skillMd({ name: "mine", description: "Not the project's." }),
    );
    const lines = await skillsExtension.trustPreview!(
      { cwd: t.project, projectRoot: t.project },
      { signal: new AbortController().signal },
    );
    expect(lines).toEqual([
      "skill notes (.agents/skills): Notes.",
      "skill release (.claude/skills): Cut a release.; pre-approves Bash(git push:*) Bash(npm publish:*) when loaded",
      expect.stringMatching(/^skills error: .*\.keel\/skills\/broken\/SKILL\.md \(description\)/),
    ]);
  });
});
