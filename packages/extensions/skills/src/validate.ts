// Front matter → SkillMeta, by the Agent Skills rules applied leniently (as the format's client
// guide advises): cosmetic problems load the skill with a warning naming the field; a missing
// description, or a name Keel cannot use at all, skips it.
import { splitToolRules } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import type { SkillDiagnostic, SkillMeta } from "./types.js";

export const MAX_NAME = 64;
export const MAX_DESCRIPTION = 1024;
export const MAX_COMPATIBILITY = 500;

/** The spec's name: lowercase letters, digits and single inner hyphens. */
const SPEC_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** What Keel can still use as a catalog entry and a `/skill:<name>` command. */
const USABLE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface Validated {
  meta: SkillMeta;
  warnings: SkillDiagnostic[];
}

export type SkipReason = { type: "skipped"; field: string; message: string };

/** Folds the description into one line for the catalog, bounded. */
export function summaryOf(description: string, max = MAX_DESCRIPTION): string {
  const line = description.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function nameProblems(name: string, folder: string): string[] {
  const problems: string[] = [];
  if (name.length > MAX_NAME) problems.push(`is longer than ${MAX_NAME} characters`);
  if (!SPEC_NAME.test(name)) problems.push("not lowercase letters, digits and single hyphens (a-z, 0-9, -)");
  if (name !== folder) problems.push(`does not match the folder name "${folder}"`);
  return problems;
}

export function validateFrontMatter(
  data: Record<string, unknown>,
  folder: string,
  file: string,
): Result<Validated, SkipReason> {
  const warnings: SkillDiagnostic[] = [];
  const warn = (field: string, message: string) => warnings.push({ level: "warning", file, field, message });

  const rawDescription = data.description;
  if (typeof rawDescription !== "string" || rawDescription.trim() === "")
    return err({
      type: "skipped",
      field: "description",
      message:
        rawDescription === undefined
          ? "no description: the model could never know when to use it; skipped"
          : "description is empty or not text; skipped",
    });
  const description = rawDescription.trim();
  if (description.length > MAX_DESCRIPTION)
    warn(
      "description",
      `${description.length} characters, over the ${MAX_DESCRIPTION} allowed; the catalog shows the first ${MAX_DESCRIPTION}`,
    );

  let name: string;
  const rawName = data.name;
  if (rawName === undefined || (typeof rawName === "string" && rawName.trim() === "")) {
    if (!USABLE_NAME.test(folder))
      return err({
        type: "skipped",
        field: "name",
        message: `no name, and the folder name "${folder}" cannot be one; skipped`,
      });
    warn("name", `missing; using the folder name "${folder}"`);
    name = folder;
  } else if (typeof rawName !== "string" || !USABLE_NAME.test(rawName.trim())) {
    if (!USABLE_NAME.test(folder))
      return err({
        type: "skipped",
        field: "name",
        message: `${JSON.stringify(rawName)} cannot be a skill name; skipped`,
      });
    warn("name", `${JSON.stringify(rawName)} cannot be used as a name; using the folder name "${folder}"`);
    name = folder;
  } else {
    name = rawName.trim();
    const problems = nameProblems(name, folder);
    if (problems.length > 0) warn("name", `"${name}" ${problems.join("; ")}; loaded anyway`);
  }

  const meta: SkillMeta = {
    name,
    description,
    allowedTools: [],
    disableModelInvocation: false,
    userInvocable: true,
  };

  if (data.license !== undefined) {
    if (typeof data.license === "string") meta.license = data.license;
    else warn("license", "not text; ignored");
  }

  if (data.compatibility !== undefined) {
    if (typeof data.compatibility !== "string") warn("compatibility", "not text; ignored");
    else {
      meta.compatibility = data.compatibility;
      if (data.compatibility.length > MAX_COMPATIBILITY)
        warn(
          "compatibility",
          `${data.compatibility.length} characters, over the ${MAX_COMPATIBILITY} allowed`,
        );
    }
  }

  if (data.metadata !== undefined) {
    const m = data.metadata;
    if (typeof m !== "object" || m === null || Array.isArray(m)) warn("metadata", "not a mapping; ignored");
    else {
      const kept: Record<string, string> = {};
      const dropped: string[] = [];
      for (const [k, v] of Object.entries(m)) {
        if (typeof v === "string") kept[k] = v;
        else if (typeof v === "number" || typeof v === "boolean") kept[k] = String(v);
        else dropped.push(k);
      }
      if (dropped.length > 0) warn("metadata", `values of ${dropped.join(", ")} are not text; ignored`);
      meta.metadata = kept;
    }
  }

  const tools = data["allowed-tools"];
  if (tools !== undefined) {
    if (typeof tools === "string") meta.allowedTools = splitToolRules(tools);
    else if (Array.isArray(tools) && tools.every((t) => typeof t === "string"))
      meta.allowedTools = tools.flatMap((t) => splitToolRules(t));
    else warn("allowed-tools", "not a space-separated string or a list of strings; ignored");
  }

  const disable = data["disable-model-invocation"];
  if (disable !== undefined) {
    if (typeof disable === "boolean") meta.disableModelInvocation = disable;
    else warn("disable-model-invocation", "not true or false; ignored");
  }

  const invocable = data["user-invocable"];
  if (invocable !== undefined) {
    if (typeof invocable === "boolean") meta.userInvocable = invocable;
    else warn("user-invocable", "not true or false; ignored");
  }

  const hint = data["argument-hint"];
  if (hint !== undefined) {
    if (typeof hint === "string") meta.argumentHint = hint;
    // `argument-hint: [issue]` is a YAML list; show it as written.
    else if (Array.isArray(hint)) meta.argumentHint = hint.map((h) => `[${String(h)}]`).join(" ");
    else warn("argument-hint", "not text; ignored");
  }

  return ok({ meta, warnings });
}
