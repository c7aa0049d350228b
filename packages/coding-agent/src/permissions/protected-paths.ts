// The paths whose change runs code later, widens what Keel may do, or leaks credentials: one list
// for the permission gate (a write there asks) and the OS sandbox (mounted read-only there).

/** Under the user's home directory: shell start-up files, credentials, git's and npm's config. */
export const HOME_PROTECTED: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".kshrc",
  ".cshrc",
  ".tcshrc",
  ".config/fish",
  ".ssh",
  ".gnupg",
  ".aws",
  ".gitconfig",
  ".config/git",
  ".npmrc",
  ".keel",
];

/**
 * Under the user's home: credential stores no command the model runs has reason to read. The OS
 * sandbox hides them (with Keel's home) in every mode; nothing else reads this list.
 */
export const HOME_SECRETS: readonly string[] = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".password-store",
];

/**
 * Under the workspace: git's hooks and config (they run code at the next git command), and the
 * project's own Keel, Claude Code and agent configuration (extensions, hooks, MCP servers, skills,
 * agents). The sandbox keeps exactly these read-only even where the workspace is writable.
 */
export const WORKSPACE_PROTECTED: readonly string[] = [
  ".git/hooks",
  ".git/config",
  ".keel",
  ".claude",
  ".agents",
  ".mcp.json",
];

/**
 * The permission gate asks before a tool writes anywhere in `.git` (a tool has no business in git's
 * own files); the sandbox leaves the rest of `.git` writable so git itself can commit.
 */
export const WORKSPACE_PROTECTED_FOR_TOOLS: readonly string[] = [".git", ...WORKSPACE_PROTECTED];
