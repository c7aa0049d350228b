// /tree: the session tree; `/tree <entry id>` continues from that entry (a host may offer a picker).
import type { BuiltinCommand } from "./spec.js";
import { outcome } from "./spec.js";

export const treeCommand: BuiltinCommand = (agent) => ({
  name: "tree",
  description: "Show the session tree; continue from an entry",
  argumentHint: "[entry id]",
  interactive: "tree-picker",
  run: async (args) => {
    if (args) return outcome((await agent.branch(args)).map(() => ({ message: `Continuing from ${args}.` })));
    const lines = agent
      .tree()
      .map(
        (n) =>
          `${n.isHead ? "▶" : n.onCurrentBranch ? "│" : " "} ${n.id} ${n.text}${n.label ? ` [${n.label}]` : ""}`,
      );
    return { message: lines.join("\n") || "The session is empty." };
  },
});
