// Public surface of project trust (re-exported by the package index).
export {
  DEFAULT_HASH_LIMITS,
  EXCLUDED_KEEL_PATHS,
  type HashLimits,
  hashProject,
  TRUSTED_ROOT_FILES,
  type TrustError,
} from "./hash.js";
export { findProjectRoot } from "./root.js";
export {
  type TrustEntry,
  type TrustOptions,
  type TrustStatus,
  trustProject,
  trustStatus,
  untrustProject,
} from "./store.js";
