// The OS sandbox around the commands the model runs: its policy per permission mode, the Linux
// (bubblewrap) and macOS (Seatbelt) back ends, the environment commands get, and the settings.
export { bwrapArgs } from "./bwrap.js";
export { commandEnvironment, isSecretName, isSecretVariable } from "./env.js";
export { execConfined } from "./exec.js";
export { type PathEntry, type PolicyInput, type SandboxPolicy, sandboxPolicy } from "./policy.js";
export { probeSandbox, type SandboxAvailability, type SandboxBackend } from "./probe.js";
export { hostAllowed, type Lookup, type NetworkProxy, startProxy } from "./proxy.js";
export {
  CommandSandbox,
  type CommandSandboxOptions,
  type ConfinedSpawn,
  type SandboxRefusal,
  type SandboxState,
  sandboxNotice,
} from "./runtime.js";
export { seatbeltProfile } from "./seatbelt.js";
export { unixSocketFilter } from "./seccomp.js";
export {
  DEFAULT_SANDBOX_SETTINGS,
  resolveSandboxSettings,
  SandboxConfigSchema,
  type SandboxSettings,
} from "./settings.js";
