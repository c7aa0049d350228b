// Claude Code's path-scoped rules (`.claude/rules/*.md` with `paths:`): not in the system prompt,
// told to the model the first time a tool call touches a matching file, as a persisted notice
// appended after that call (the bytes already sent never change). Keyed by the rule's file, so a
// branch hears each rule once, a resume included.
import { resolve } from "node:path";
import type { ContextFile } from "../prompt/context-files.js";
import { ruleMatches } from "../prompt/rules.js";

export function scopedRuleNotices(
  rules: readonly ContextFile[],
  cwd: string,
  notify: (text: string, key: string) => void,
): (paths: string[]) => void {
  const scoped = rules.filter((r) => r.scope !== undefined);
  return (paths) => {
    if (scoped.length === 0) return;
    const files = paths.map((p) => resolve(cwd, p));
    for (const rule of scoped) {
      const { patterns, base } = rule.scope!;
      const file = files.find((f) => ruleMatches(patterns, base, f));
      if (file === undefined) continue;
      notify(
        `Instructions from ${rule.path}, which apply to files matching ${patterns.join(", ")} (such as ${file}):\n${rule.content.trim()}`,
        `rule:${rule.path}`,
      );
    }
  };
}
