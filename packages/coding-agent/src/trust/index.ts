// Public surface of project trust (re-exported by the package index).
export {
  DEFAULT_HASH_LIMITS,
  EXCLUDED_KEEL_PATHS,
  type HashLimits,
  hashProject,
  TRUSTED_PROJECT_DIRS,
  TRUSTED_ROOT_FILES,
  type TrustError,
} from "./hash.js";
export { CONTEXT_FILE_NAMES, MAX_CONTEXT_BYTES } from "./nested.js";
export { findEnclosingRoot, findProjectRoot } from "./root.js";
export {
  checkTrust,
  renewProjectHash,
  type TrustCheck,
  type TrustEntry,
  type TrustOptions,
  type TrustStatus,
  trustProject,
  trustStatus,
  untrustProject,
  writeKeepingTrust,
} from "./store.js";
