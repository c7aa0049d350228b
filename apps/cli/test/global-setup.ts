// Builds the bundle once before the e2e tests, so they always run the current source's bin.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { CLI_ROOT } from "./helpers.js";

export default function setup(): void {
  execFileSync(process.execPath, [join(CLI_ROOT, "scripts/build.mjs"), "--bundle-only"], {
    cwd: CLI_ROOT,
    stdio: "inherit",
  });
}
