// keel install / uninstall / update / list: extension packages from npm (the registry of the
// user's npm config), for the user (the Keel home) or a trusted project. The package work is the
// kernel's; this parses, prints and picks exit codes.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  findProjectRoot,
  type InstalledPackage,
  installDeclared,
  installPackage,
  recordedPackages,
  uninstallPackage,
  updatePackages,
} from "@keel/coding-agent";
import { EXIT } from "../exit-codes.js";
import type { SubcommandIO } from "./index.js";

const line = (p: InstalledPackage) =>
  `${p.name}@${p.version}  (${p.scope}${p.spec !== p.name ? `, from ${p.spec}` : ""})`;

const OPTIONS = {
  project: { type: "boolean" },
  "allow-scripts": { type: "boolean" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function packagesCommand(
  name: "install" | "uninstall" | "update" | "list",
  argv: string[],
  io: SubcommandIO,
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`keel ${name}: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE[name]);
    return EXIT.ok;
  }
  const keelHome = io.keelHome;
  const where = { keelHome, projectRoot: findProjectRoot(resolve(io.cwd, values.cwd ?? "."), keelHome) };
  const scope = values.project ? ("project" as const) : ("user" as const);

  if (name === "list") {
    const list = [...recordedPackages("user", where), ...recordedPackages("project", where)].filter(
      (p) => !values.project || p.scope === "project",
    );
    io.stdout(list.length > 0 ? `${list.map(line).join("\n")}\n` : "No extension packages installed.\n");
    return EXIT.ok;
  }
  if (name === "install" && positionals.length === 0 && scope === "project") {
    const done = await installDeclared({ ...where, allowScripts: values["allow-scripts"] === true });
    if (done.isErr()) {
      io.stderr(`keel install: ${done.error.message}\n`);
      return EXIT.failed;
    }
    io.stdout(
      done.value.length > 0
        ? `${done.value.map((p) => `installed ${line(p)}`).join("\n")}\n`
        : "This project declares no packages.\n",
    );
    return EXIT.ok;
  }
  if (name === "update") {
    if (positionals.length > 1) {
      io.stderr(`keel update: give at most one package.\n${USAGE.update}`);
      return EXIT.usage;
    }
    const done = await updatePackages({
      ...where,
      scope,
      ...(positionals[0] ? { name: positionals[0] } : {}),
      allowScripts: values["allow-scripts"] === true,
    });
    if (done.isErr()) {
      io.stderr(`keel update: ${done.error.message}\n`);
      return /not installed|not trusted/.test(done.error.message) ? EXIT.usage : EXIT.failed;
    }
    const { updated, skipped } = done.value;
    const lines = [
      ...updated.map((p) =>
        p.version === p.from
          ? `${p.name}@${p.version} is the newest`
          : `updated ${p.name} ${p.from} -> ${p.version}`,
      ),
      ...skipped.map((p) => `${p.name}@${p.version} came from ${p.spec}; install it again to update it`),
    ];
    io.stdout(
      lines.length > 0
        ? `${lines.join("\n")}\n${updated.some((p) => p.version !== p.from) ? "Updates load when the next session starts.\n" : ""}`
        : "No extension packages installed.\n",
    );
    return EXIT.ok;
  }
  if (positionals.length !== 1) {
    io.stderr(`keel ${name}: give exactly one package.\n${USAGE[name]}`);
    return EXIT.usage;
  }
  const spec = positionals[0]!;
  const done =
    name === "install"
      ? await installPackage(spec, { ...where, scope, allowScripts: values["allow-scripts"] === true })
      : await uninstallPackage(spec, { ...where, scope });
  if (done.isErr()) {
    io.stderr(`keel ${name}: ${done.error.message}\n`);
    return /not installed|not trusted|give exactly/.test(done.error.message) ? EXIT.usage : EXIT.failed;
  }
  io.stdout(
    name === "install"
      ? `installed ${line(done.value)}; it loads when the next session starts.\n`
      : `removed ${done.value.name}.\n`,
  );
  return EXIT.ok;
}

const USAGE = {
  install:
    "Usage: keel install <npm-spec> [--project] [--allow-scripts] [--cwd <dir>]\n       keel install --project   (the packages this project declares)\n",
  uninstall: "Usage: keel uninstall <name> [--project] [--cwd <dir>]\n",
  update:
    "Usage: keel update [<name>] [--project] [--allow-scripts] [--cwd <dir>]\n       (every installed package, or the one named, to the newest version its spec allows)\n",
  list: "Usage: keel list [--project] [--cwd <dir>]\n",
};
