// splitToolRules: Claude Code's rule lists as users write them, the one reader the kernel, the CLI
// and the skills extension share.
import { describe, expect, it } from "vitest";
import { splitToolRules } from "../src/index.js";

describe("splitToolRules", () => {
  it("splits on commas and white space outside parentheses, keeping what is inside them whole", () => {
    expect(splitToolRules("Bash(git add:*), Bash(git status:*) Read")).toEqual([
      "Bash(git add:*)",
      "Bash(git status:*)",
      "Read",
    ]);
    expect(splitToolRules("Bash(git log --oneline, -n 5:*),Edit\tWrite\nGrep")).toEqual([
      "Bash(git log --oneline, -n 5:*)",
      "Edit",
      "Write",
      "Grep",
    ]);
  });

  it("gives nothing for blank input and drops empty rules; an unbalanced ) does not open a depth", () => {
    expect(splitToolRules("")).toEqual([]);
    expect(splitToolRules(" ,, \t")).toEqual([]);
    expect(splitToolRules("Read) Edit")).toEqual(["Read)", "Edit"]);
    expect(splitToolRules("Bash(unclosed Edit")).toEqual(["Bash(unclosed Edit"]);
  });
});
