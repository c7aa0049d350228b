// Public surface of project trust (re-exported by the package index).

export { CONTEXT_FILE_NAMES, MAX_CONTEXT_BYTES } from "../prompt/context-files.js";
export {
  DEFAULT_HASH_LIMITS,
  EXCLUDED_KEEL_PATHS,
  type HashLimits,
  hashProject,
  TRUSTED_PROJECT_DIRS,
  TRUSTED_ROOT_FILES,
  type TrustError,
} from "./hash.js";
export { findEnclosingRoot, findProjectRoot } from "./root.js";
export {
  checkTrust,
  type TrustApprovals,
  type TrustCheck,
  type TrustEntry,
  type TrustOptions,
  type TrustProjectOptions,
  type TrustStatus,
  trustProject,
  trustStatus,
  untrustProject,
  writeKeepingTrust,
} from "./store.js";
export {
  changeLines,
  projectSurface,
  type Surface,
  surfaceChanges,
  type TrustChange,
} from "./surface.js";
