// Public surface of permissions (re-exported by the package index).
export { decide } from "./decide.js";
export {
  type ApprovalRequest,
  createPermissionGate,
  type GateAnswer,
  type GateDenier,
  type GateOutcome,
  type PermissionGate,
  type PermissionGateOptions,
  type PersistFailure,
  type PersistScope,
  type ToolCallToCheck,
} from "./gate.js";
export { readGuardFor } from "./read-scope.js";
export { checkRule, type ParsedRule, parseRule } from "./rules.js";
export { BEFORE_V8_FLAGS } from "./shell/wasm-tiering.js";
// Every permission type is public: the vocabulary a host's gate and rules are written in.
export type * from "./types.js";
