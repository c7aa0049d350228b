// What a loaded skill becomes (body wrapped with name, folder and files), `$ARGUMENTS`, and the
// catalog budget that decides which entries a notice lists.
import { describe, expect, it } from "vitest";
import { budgetChars, modelSkills, skillEntry } from "../src/catalog.js";
import { catalogView } from "../src/listing.js";
import { skillContent, splitArguments, substituteArguments } from "../src/render.js";
import type { Skill } from "../src/types.js";

const skill = (name: string, description = `${name} does things.`, extra: Partial<Skill> = {}): Skill => ({
  name,
  description,
  summary: description,
  allowedTools: [],
  disableModelInvocation: false,
  userInvocable: true,
  dir: `/skills/${name}`,
  file: `/skills/${name}/SKILL.md`,
  root: { path: "/skills", scope: "user", label: "~/.keel/skills", trusted: true },
  size: 100,
  ...extra,
});

describe("arguments", () => {
  it("splits like a shell for quoting", () => {
    expect(splitArguments(`"my widget" React 'a b' c\\"d`)).toEqual(["my widget", "React", "a b", 'c\\"d']);
  });

  it("fills $ARGUMENTS, $ARGUMENTS[N] and the skill folder; leaves $1 alone", () => {
    const body =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the skill body's own placeholder, not a template
      "Fix issue $ARGUMENTS.\nFirst: $ARGUMENTS[0], third: [$ARGUMENTS[2]].\nRun ${CLAUDE_SKILL_DIR}/x.sh $1";
    expect(substituteArguments(body, `42 "two words"`, "/s/fix")).toBe(
      'Fix issue 42 "two words".\nFirst: 42, third: [].\nRun /s/fix/x.sh $1',
    );
  });

  it("appends arguments a body never asks for, and keeps $-patterns in them literal", () => {
    expect(substituteArguments("Review the diff.", "src/a.ts", "/d")).toBe(
      "Review the diff.\n\nARGUMENTS: src/a.ts",
    );
    expect(substituteArguments("Say $ARGUMENTS", "$& $1", "/d")).toBe("Say $& $1");
    expect(substituteArguments("No args.", "  ", "/d")).toBe("No args.");
  });
});

describe("skillContent", () => {
  it("wraps the body with the name, the folder and its files", () => {
    const text = skillContent(skill("pdf"), "# PDF\nSteps.", { files: ["scripts/x.py"], truncated: false });
    expect(text).toBe(
      [
        '<skill name="pdf" dir="/skills/pdf">',
        "# PDF\nSteps.",
        "",
        "Relative paths in this skill are relative to /skills/pdf.",
        'Files in this skill (read one with the Skill tool: {"skill": "pdf", "path": "<file>"}):',
        "  scripts/x.py",
        "</skill>",
      ].join("\n"),
    );
  });
});

describe("catalog", () => {
  it("budgets about 1% of the context window, at four characters a token", () => {
    expect(budgetChars(200_000)).toBe(8000);
    expect(budgetChars(1_000_000, 0.02)).toBe(80_000);
    expect(budgetChars(0)).toBe(8000);
  });

  it("leaves user-only skills out of the model's catalog", () => {
    const skills = [skill("a"), skill("b", "B.", { disableModelInvocation: true })];
    expect(modelSkills(skills).map((s) => s.name)).toEqual(["a"]);
  });

  it("changes an entry's digest with its description, not its body", () => {
    const a = skillEntry(skill("a", "One."));
    expect(skillEntry(skill("a", "One.", { size: 999 })).digest).toBe(a.digest);
    expect(skillEntry(skill("a", "Two.")).digest).not.toBe(a.digest);
    expect(a).toMatchObject({ name: "a", executable: false, summary: "One." });
  });

  it("cuts the entries past the budget with the host's rule, and never lists user-only ones", () => {
    const skills = ["aa", "bb", "cc"].map((n) => skill(n, "x".repeat(10)));
    skills.push(skill("dd", "D.", { disableModelInvocation: true }));
    const one = "    - aa: xxxxxxxxxx\n".length;
    const view = catalogView(skills, one * 2 + 1);
    expect(view.listed.map((s) => s.name)).toEqual(["aa", "bb"]);
    expect(view.cut.map((s) => s.name)).toEqual(["cc"]);
    expect(view.userOnly.map((s) => s.name)).toEqual(["dd"]);
    expect(view.used).toBe(one * 2);
  });
});
