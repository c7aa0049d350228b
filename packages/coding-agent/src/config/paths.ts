// Where Keel keeps its files: the user's Keel home (~/.keel, or $KEEL_HOME) and a project's .keel/.
import { homedir } from "node:os";
import { join, resolve, sep } from "node:path";

/** The Keel home directory: `$KEEL_HOME` when set, else `~/.keel`. */
export function resolveKeelHome(env: NodeJS.ProcessEnv = process.env, userHome: string = homedir()): string {
  const fromEnv = env.KEEL_HOME;
  return fromEnv && fromEnv.length > 0 ? resolve(fromEnv) : join(userHome, ".keel");
}

export const PROJECT_DIR = ".keel";

export interface ConfigPaths {
  user: string;
  trust: string;
  project: string;
  projectLocal: string;
}

export function configPaths(keelHome: string, projectRoot: string): ConfigPaths {
  return {
    user: join(keelHome, "config.json"),
    trust: join(keelHome, "trust.json"),
    project: join(projectRoot, PROJECT_DIR, "config.json"),
    projectLocal: join(projectRoot, PROJECT_DIR, "config.local.json"),
  };
}

/** Shows a path the way a user would type it (`~/.keel/config.json`) in messages. */
export function displayPath(path: string, userHome: string = homedir()): string {
  if (path === userHome) return "~";
  return path.startsWith(userHome + sep) ? "~" + path.slice(userHome.length) : path;
}
