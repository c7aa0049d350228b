// A real temp tree for permission tests: workspace, fake home, an outside dir and real symlinks.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PermissionFixture {
  root: string;
  workspace: string;
  home: string;
  keelHome: string;
  outside: string;
  cleanup(): void;
}

export function makePermissionFixture(): PermissionFixture {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "keel-perm-")));
  const workspace = join(root, "ws");
  const home = join(root, "home");
  const outside = join(root, "outside");
  for (const d of [
    join(workspace, "src"),
    join(workspace, "docs"),
    join(home, ".ssh"),
    join(home, ".keel"),
    outside,
  ]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(workspace, "src", "a.ts"), "export {};\n");
  writeFileSync(join(home, ".ssh", "id_rsa"), "secret\n");
  writeFileSync(join(home, ".bashrc"), "# rc\n");
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  // A link inside the workspace that points outside it, and one that stays inside.
  symlinkSync(outside, join(workspace, "link-out"));
  symlinkSync(join(outside, "secret.txt"), join(workspace, "src", "innocent.ts"));
  symlinkSync(join(workspace, "docs"), join(workspace, "src", "docs-link"));
  return {
    root,
    workspace,
    home,
    keelHome: join(home, ".keel"),
    outside,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
