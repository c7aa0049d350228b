// Claude Code's tool-rule lists as its users write them (`allowed-tools` in skills and command
// files, `--allowedTools` on the command line): one string of rules separated by commas or white
// space outside parentheses, so `Bash(git diff:*) Read,Edit` is three rules. One reader for the
// kernel, the CLI and extensions.

/** The rules in `value`, in order, without empty ones: `"Bash(git log:*), Read"` → two rules. */
export function splitToolRules(value: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let rule = "";
  for (const ch of value) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (rule) rules.push(rule);
      rule = "";
    } else rule += ch;
  }
  if (rule) rules.push(rule);
  return rules;
}
