// The `sandbox` config section, resolved from its layers by its own rule: the user's config sets
// it, a project's config (.keel/config.json, config.local.json) may only narrow it — turn the
// sandbox or autoAllow on, never off; keep fewer domains, variables or writable paths, never more.
import { Type } from "@sinclair/typebox";

export const SandboxConfigSchema = Type.Object({
  /** Default true. false: commands run unconfined, judged by parsing alone (said once at start). */
  enabled: Type.Optional(Type.Boolean()),
  /** In default and acceptEdits mode, a command that would only ask runs unasked inside the sandbox. */
  autoAllow: Type.Optional(Type.Boolean()),
  /** Hosts commands may reach, through Keel's proxy (`example.com`, `*.example.com`). Default none. */
  allowedDomains: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Secret-looking variables commands get all the same, by name. */
  allowEnv: Type.Optional(Type.Array(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }))),
  /** More paths commands may write outside plan mode (`~/.cache/pip`); protected paths stay read-only. */
  allowWrite: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** bypassPermissions mode: "sandbox" (default) keeps the sandbox; "none" runs commands unconfined. */
  bypassPermissions: Type.Optional(Type.Union([Type.Literal("sandbox"), Type.Literal("none")])),
});

export const SANDBOX_KEYS = [
  "enabled",
  "autoAllow",
  "allowedDomains",
  "allowEnv",
  "allowWrite",
  "bypassPermissions",
] as const;

export interface SandboxSettings {
  enabled: boolean;
  autoAllow: boolean;
  allowedDomains: string[];
  allowEnv: string[];
  allowWrite: string[];
  bypassPermissions: "sandbox" | "none";
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  enabled: true,
  autoAllow: false,
  allowedDomains: [],
  allowEnv: [],
  allowWrite: [],
  bypassPermissions: "sandbox",
};

type Layer = Partial<SandboxSettings> | undefined;

/** The settings, and a line for each project setting that tried to widen them (ignored). */
export function resolveSandboxSettings(
  user: Layer,
  projects: { file: string; layer: Layer }[],
): { settings: SandboxSettings; ignored: string[] } {
  const settings: SandboxSettings = {
    ...DEFAULT_SANDBOX_SETTINGS,
    ...Object.fromEntries(Object.entries(user ?? {}).filter(([, v]) => v !== undefined)),
  };
  const ignored: string[] = [];
  const widens = (file: string, key: string) =>
    ignored.push(`${file}: sandbox.${key} may only narrow your own setting; ignored`);
  for (const { file, layer } of projects) {
    if (!layer) continue;
    if (layer.enabled === true) settings.enabled = true;
    else if (layer.enabled === false && settings.enabled) widens(file, "enabled");
    if (layer.autoAllow === false) settings.autoAllow = false;
    else if (layer.autoAllow === true && !settings.autoAllow) widens(file, "autoAllow");
    if (layer.bypassPermissions === "sandbox") settings.bypassPermissions = "sandbox";
    else if (layer.bypassPermissions === "none" && settings.bypassPermissions !== "none")
      widens(file, "bypassPermissions");
    for (const key of ["allowedDomains", "allowEnv", "allowWrite"] as const) {
      const listed = layer[key];
      if (!listed) continue;
      if (listed.some((item) => !settings[key].includes(item)))
        widens(file, `${key} (entries you do not allow)`);
      settings[key] = settings[key].filter((item) => listed.includes(item));
    }
  }
  return { settings, ignored };
}
