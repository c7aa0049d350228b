// SKILL.md parsing and validation: YAML only (JavaScript front matter is never evaluated), the
// Agent Skills rules applied leniently, and the repair of unquoted `: ` values.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseSkillFile } from "../src/frontmatter.js";
import { splitAllowedTools } from "../src/index.js";
import { summaryOf, validateFrontMatter } from "../src/validate.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("parseSkillFile", () => {
  it("splits YAML front matter from the body", () => {
    const parsed = parseSkillFile("---\nname: pdf\ndescription: Read PDFs.\n---\n\n# PDF\nSteps.\n");
    expect(parsed._unsafeUnwrap()).toEqual({
      data: { name: "pdf", description: "Read PDFs." },
      body: "# PDF\nSteps.",
    });
  });

  it("accepts CRLF line endings and a byte-order mark", () => {
    const parsed = parseSkillFile("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nBody\r\n");
    expect(parsed._unsafeUnwrap()).toEqual({ data: { name: "a", description: "b" }, body: "Body" });
  });

  for (const tag of ["js", "javascript", "JavaScript", "coffee"]) {
    it(`never evaluates ---${tag} front matter`, () => {
      const dir = mkdtempSync(join(tmpdir(), "keel-fm-"));
      dirs.push(dir);
      const marker = join(dir, "marker");
      const text = `---${tag}\n{ description: (require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran"), "x") }\n---\nBody`;
      const parsed = parseSkillFile(text);
      expect(parsed.isErr()).toBe(true);
      expect(parsed._unsafeUnwrapErr()).toMatchObject({ type: "unsupported_language" });
      expect(parsed._unsafeUnwrapErr().message).toContain("never evaluated");
      expect(existsSync(marker)).toBe(false);
    });
  }

  it("refuses other languages too, naming the tag", () => {
    const parsed = parseSkillFile('---json\n{"description": "x"}\n---\n');
    expect(parsed._unsafeUnwrapErr().message).toContain('"---json"');
  });

  it("says when there is no front matter at all", () => {
    expect(parseSkillFile("# Just markdown\n")._unsafeUnwrapErr().type).toBe("no_front_matter");
  });

  it("reports unparseable YAML with its line", () => {
    const parsed = parseSkillFile("---\nname: a\ndescription: [unclosed\n---\n");
    expect(parsed._unsafeUnwrapErr().type).toBe("invalid_yaml");
    expect(parsed._unsafeUnwrapErr().message).toMatch(/line \d+/);
  });

  it("reads `description: Use when: …` after quoting it, and says so", () => {
    const parsed = parseSkillFile(
      "---\nname: pdf\ndescription: Use this skill when: the user asks about PDFs\n---\nBody",
    );
    const value = parsed._unsafeUnwrap();
    expect(value.data.description).toBe("Use this skill when: the user asks about PDFs");
    expect(value.repaired).toContain("description");
  });

  it("refuses front matter that is not a mapping", () => {
    expect(parseSkillFile("---\n- a\n- b\n---\n")._unsafeUnwrapErr().type).toBe("not_a_mapping");
  });
});

describe("validateFrontMatter", () => {
  const file = "/skills/pdf/SKILL.md";

  it("keeps every field of the format and Claude Code's extras", () => {
    const v = validateFrontMatter(
      {
        name: "pdf",
        description: "Read PDFs.",
        license: "MIT",
        compatibility: "Needs poppler",
        metadata: { author: "me", version: 1 },
        "allowed-tools": "Bash(git diff:*) Read",
        "disable-model-invocation": true,
        "user-invocable": false,
        "argument-hint": ["file"],
      },
      "pdf",
      file,
    )._unsafeUnwrap();
    expect(v.warnings).toEqual([]);
    expect(v.meta).toEqual({
      name: "pdf",
      description: "Read PDFs.",
      license: "MIT",
      compatibility: "Needs poppler",
      metadata: { author: "me", version: "1" },
      allowedTools: ["Bash(git diff:*)", "Read"],
      disableModelInvocation: true,
      userInvocable: false,
      argumentHint: "[file]",
    });
  });

  it("skips a skill without a description", () => {
    const r = validateFrontMatter({ name: "pdf" }, "pdf", file);
    expect(r._unsafeUnwrapErr()).toMatchObject({ field: "description" });
  });

  it("loads cosmetic problems with a warning naming the field", () => {
    const long = "x".repeat(1100);
    const v = validateFrontMatter(
      { name: "PDF--Tools", description: long, compatibility: "y".repeat(600), metadata: "nope" },
      "pdf",
      file,
    )._unsafeUnwrap();
    expect(v.meta.name).toBe("PDF--Tools");
    expect(v.warnings.map((w) => w.field)).toEqual(["description", "name", "compatibility", "metadata"]);
    expect(v.warnings.every((w) => w.file === file && w.level === "warning")).toBe(true);
    expect(v.warnings[1]?.message).toContain('does not match the folder name "pdf"');
  });

  it("uses the folder name when the name is missing or unusable", () => {
    expect(validateFrontMatter({ description: "d" }, "pdf", file)._unsafeUnwrap().meta.name).toBe("pdf");
    const v = validateFrontMatter(
      { name: "has spaces/slash", description: "d" },
      "pdf",
      file,
    )._unsafeUnwrap();
    expect(v.meta.name).toBe("pdf");
    expect(v.warnings[0]?.field).toBe("name");
  });

  it("ignores ill-typed optional fields with a warning", () => {
    const v = validateFrontMatter(
      { name: "pdf", description: "d", "allowed-tools": 3, "disable-model-invocation": "yes" },
      "pdf",
      file,
    )._unsafeUnwrap();
    expect(v.meta.allowedTools).toEqual([]);
    expect(v.meta.disableModelInvocation).toBe(false);
    expect(v.warnings.map((w) => w.field)).toEqual(["allowed-tools", "disable-model-invocation"]);
  });
});

describe("helpers", () => {
  it("splits allowed-tools on spaces and commas outside parentheses", () => {
    expect(splitAllowedTools("Bash(git add:*), Bash(git status:*) Read")).toEqual([
      "Bash(git add:*)",
      "Bash(git status:*)",
      "Read",
    ]);
  });

  it("folds a description into one bounded line", () => {
    expect(summaryOf("Read PDFs.\n  Use when\tasked.")).toBe("Read PDFs. Use when asked.");
    expect(summaryOf("a".repeat(30), 10)).toBe(`${"a".repeat(9)}…`);
  });
});
