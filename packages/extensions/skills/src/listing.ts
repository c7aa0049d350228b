// `/skills`: every skill with where it came from, its size, and whether the model's catalog
// lists it, leaves it out for the budget, or never shows it (user-only); then the diagnostics.
import { fitToBudget, noticeLine } from "@keel/extension-sdk";
import { modelSkills } from "./catalog.js";
import type { Discovery } from "./discover.js";
import { formatSize } from "./render.js";
import { diagnosticLine, type Skill } from "./types.js";

export interface CatalogView {
  listed: Skill[];
  cut: Skill[];
  userOnly: Skill[];
  /** Characters the listed entries take. */
  used: number;
}

/** Which skills the catalog lists within `budget` and which it cuts, in the order it lists them. */
export function catalogView(skills: Skill[], budget: number): CatalogView {
  // The catalog lists entries in this order (discover returns them by name).
  const { listed, cut } = fitToBudget(modelSkills(skills), budget);
  return {
    listed,
    cut,
    userOnly: skills.filter((s) => s.disableModelInvocation),
    used: listed.reduce((n, s) => n + noticeLine(s.name, s.summary).length + 1, 0),
  };
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text.padEnd(width + 1);
}

export function skillsListing(discovery: Discovery, budget: number, trusted: boolean): string {
  const { skills, diagnostics } = discovery;
  const view = catalogView(skills, budget);
  const cut = new Set(view.cut.map((s) => s.name));
  const lines: string[] = [];
  if (skills.length === 0) lines.push("No skills found.");
  else {
    lines.push(
      `${skills.length} skill${skills.length === 1 ? "" : "s"}: ${view.listed.length} in the model's catalog` +
        (view.cut.length > 0 ? `, ${view.cut.length} cut from it by the budget` : "") +
        (view.userOnly.length > 0 ? `, ${view.userOnly.length} user-only` : "") +
        ` (catalog ${view.used} of ${budget} characters).`,
    );
    const nameWidth = Math.min(32, Math.max(...skills.map((s) => s.name.length)));
    const sourceWidth = Math.min(40, Math.max(...skills.map((s) => s.root.label.length)));
    for (const s of skills) {
      const status = s.disableModelInvocation
        ? "user-only"
        : cut.has(s.name)
          ? "cut from the catalog (budget); the Skill tool still loads it"
          : "";
      lines.push(
        `  ${pad(s.name, nameWidth)}${pad(s.root.label, sourceWidth)}${pad(formatSize(s.size), 8)}${status}`.trimEnd(),
      );
    }
  }
  if (!trusted)
    lines.push(
      "This project is not trusted: its .keel/skills, .agents/skills and .claude/skills are not read (/trust).",
    );
  if (diagnostics.length > 0) {
    lines.push("Diagnostics:");
    for (const d of diagnostics) lines.push(`  ${d.level}: ${diagnosticLine(d)}`);
  }
  return lines.join("\n");
}
