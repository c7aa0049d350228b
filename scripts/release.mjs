// `pnpm release [--registry <url>] [--no-git-tag]`: builds every package, then `changeset publish`
// publishes each public one whose version the registry does not have yet (pnpm packs it, every
// `workspace:` range rewritten to the version it names). The registry is the one given, else
// npm's configured one; authentication is npm's (an npmrc token). In CI, NPM_CONFIG_PROVENANCE=true
// adds provenance (each package's `repository` names its folder for it). Run `changeset version`
// (and commit) first: it turns the changesets into versions and changelogs.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { root } from "./workspace.mjs";

const { values } = parseArgs({
  options: {
    registry: { type: "string" },
    "no-git-tag": { type: "boolean" },
    "skip-build": { type: "boolean" },
  },
});

const env = { ...process.env };
if (values.registry) {
  const url = values.registry.endsWith("/") ? values.registry : `${values.registry}/`;
  if (!/^https?:\/\//.test(url)) {
    process.stderr.write(`--registry needs an http(s) URL, got ${values.registry}\n`);
    process.exit(2);
  }
  // npm and pnpm both read these; changeset publish runs pnpm info, pack and publish.
  env.npm_config_registry = url;
  env.pnpm_config_registry = url;
}

const step = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (!values["skip-build"]) step("pnpm", ["build"]);
step(process.execPath, [
  join(root, "node_modules/@changesets/cli/bin.js"),
  "publish",
  ...(values["no-git-tag"] ? ["--no-git-tag"] : []),
]);
