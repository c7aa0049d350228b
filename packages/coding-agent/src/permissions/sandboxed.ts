// What the OS sandbox changes about a Bash command's verdicts. With no sandbox, plan and dontAsk
// refuse commands and default/acceptEdits ask for each one the parser alone would have let run
// (the parser cannot be the only wall); with one, `sandbox.autoAllow` lets a command that would
// merely ask run unasked inside it. Deny rules, explicit ask rules and hard asks never change.
import type { PermissionMode } from "./types.js";
import { ask, deny, type Verdict } from "./verdict.js";

/** The sandbox as the gate sees it (see sandbox/runtime.ts SandboxState). */
export type GateSandbox =
  | { state: "on"; autoAllow: boolean }
  | { state: "off"; reason: string }
  | { state: "unavailable"; reason: string };

export function confineVerdicts(
  verdicts: readonly Verdict[],
  sandbox: GateSandbox,
  mode: PermissionMode,
): Verdict[] {
  if (sandbox.state === "off" || mode === "bypassPermissions") return [...verdicts];
  if (sandbox.state === "unavailable") {
    if (mode === "plan" || mode === "dontAsk")
      return [
        ...verdicts,
        deny(`no OS sandbox can start here (${sandbox.reason}), and ${mode} mode runs no command unconfined`),
      ];
    // An allow rule is the user's own word for the command; the parser's "only reads" is not enough.
    return verdicts.map((v) =>
      v.behavior === "allow" && v.rule === undefined
        ? ask(`no OS sandbox can start here (${sandbox.reason}), so the command would run unconfined`)
        : v,
    );
  }
  if (!sandbox.autoAllow || (mode !== "default" && mode !== "acceptEdits")) return [...verdicts];
  return verdicts.map((v) =>
    v.behavior === "ask" && !v.hard
      ? { behavior: "allow", reason: "runs inside the OS sandbox (sandbox.autoAllow)" }
      : v,
  );
}
