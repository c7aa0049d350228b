// What a UI changes in a running session besides the conversation: the permission mode and
// rules (with the file each lives in), and which models it could switch to (a key there or not).
import { type Model, modelRef, type StreamOptions } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import { claudeSettingsPaths } from "../config/claude-settings.js";
import { PERMISSION_MODES } from "../config/schema.js";
import { configFileFor } from "../config/write.js";
import { checkRule } from "../permissions/rules.js";
import type { KernelPermission } from "./permission.js";
import type {
  CodingAgentError,
  PermissionModeName,
  PermissionRuleEdit,
  PermissionRuleInfo,
} from "./types.js";

/** A provider's key is there: in the options, in its environment variable, or none is needed. */
export function hasKey(model: Model, options: StreamOptions): boolean {
  return Boolean(options.apiKey) || !model.apiKeyEnv || Boolean(process.env[model.apiKeyEnv]);
}

export function modelChoices(models: readonly Model[], options: StreamOptions) {
  return models.map((m) => {
    const ready = hasKey(m, options);
    return {
      ref: modelRef(m),
      name: m.name,
      ready,
      ...(!ready && m.apiKeyEnv ? { keyEnv: m.apiKeyEnv } : {}),
      ...(m.legacy ? { legacy: true } : {}),
    };
  });
}

export class PermissionControls {
  constructor(
    private readonly permission: KernelPermission,
    private readonly where: { keelHome: string; projectRoot: string },
  ) {}

  mode(): PermissionModeName {
    return this.permission.mode();
  }

  setMode(mode: PermissionModeName): Result<PermissionModeName, CodingAgentError> {
    if (!(PERMISSION_MODES as readonly string[]).includes(mode))
      return err({
        type: "config",
        message: `Unknown permission mode "${mode}" (${PERMISSION_MODES.join(", ")}).`,
      });
    this.permission.setMode(mode);
    return ok(mode);
  }

  private info(rule: Omit<PermissionRuleInfo, "file">): PermissionRuleInfo {
    const file =
      rule.source === "user" || rule.source === "project" || rule.source === "projectLocal"
        ? configFileFor(rule.source, this.where)
        : rule.source === "claudeUser" ||
            rule.source === "claudeProject" ||
            rule.source === "claudeProjectLocal"
          ? claudeSettingsPaths(this.where.projectRoot)[rule.source]
          : undefined;
    return { rule: rule.rule, behavior: rule.behavior, source: rule.source, ...(file ? { file } : {}) };
  }

  rules(): PermissionRuleInfo[] {
    return this.permission.rules().map((r) => this.info(r));
  }

  edit(edit: PermissionRuleEdit): Result<PermissionRuleInfo, CodingAgentError> {
    const problem = checkRule(edit.rule);
    if (problem) return err({ type: "config", message: problem });
    const entry = { rule: edit.rule, behavior: edit.behavior, source: edit.scope };
    const edited = this.permission.editRule(entry, edit.remove !== true);
    if (edited.isErr()) return err({ type: "config", message: edited.error.message });
    return ok(this.info(entry));
  }
}
