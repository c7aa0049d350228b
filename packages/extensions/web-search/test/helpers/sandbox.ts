// A temp git workspace and a temp Keel home for kernel and CLI tests, removed afterwards.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Sandbox {
  workspace: string;
  home: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "keel-web-"));
  const workspace = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  execFileSync("git", ["init", "-q", workspace]);
  return { workspace, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
