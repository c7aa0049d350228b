// What trusting a project would let its skills do, for the trust dialog to show before the user
// decides: each project skill with where it is and the tools its `allowed-tools` pre-approve, and
// those pre-approvals as the items the kernel records (trustApprovals): a project skill's
// allowed-tools count only when they equal what the user approved. Reads the project's skill
// folders, so it is only for that moment (the user asked to trust, or to see what changed).
import { relative, sep } from "node:path";
import { discoverSkills } from "./discover.js";
import { skillRoots } from "./roots.js";
import { diagnosticLine } from "./types.js";

export interface TrustPreviewInput {
  cwd: string;
  projectRoot: string;
}

/** One line per project skill (and per problem found), or none when the project has no skills. */
export async function projectSkillsPreview(input: TrustPreviewInput): Promise<string[]> {
  // Only the project's own roots: the user's and extensions' skills do not depend on this trust.
  const roots = skillRoots({ ...input, trusted: true, keelHome: "", home: "" }).filter(
    (r) => r.scope === "project",
  );
  const { skills, diagnostics } = await discoverSkills(roots);
  const lines = skills.map((s) => {
    const tools = s.allowedTools.length > 0 ? `; pre-approves ${s.allowedTools.join(" ")} when loaded` : "";
    return `skill ${s.name} (${s.root.label}): ${s.summary.length > 80 ? `${s.summary.slice(0, 79)}…` : s.summary}${tools}`;
  });
  for (const d of diagnostics) if (d.level !== "info") lines.push(`skills ${d.level}: ${diagnosticLine(d)}`);
  return lines;
}

/** The approval item of a project skill: its SKILL.md, relative to the project root. */
export function approvalKey(skillFile: string, projectRoot: string): string {
  return `skill ${relative(projectRoot, skillFile).split(sep).join("/")} allowed-tools`;
}

/** The value approved: the rules, as the skill lists them. */
export function approvalValue(allowedTools: readonly string[]): string {
  return allowedTools.join(" ");
}

/** Every project skill with allowed-tools, as the items trusting the project approves. */
export async function projectSkillApprovals(input: TrustPreviewInput): Promise<Record<string, string>> {
  const roots = skillRoots({ ...input, trusted: true, keelHome: "", home: "" }).filter(
    (r) => r.scope === "project",
  );
  const { skills } = await discoverSkills(roots);
  const out: Record<string, string> = {};
  for (const s of skills)
    if (s.allowedTools.length > 0)
      out[approvalKey(s.file, input.projectRoot)] = approvalValue(s.allowedTools);
  return out;
}
