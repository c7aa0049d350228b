// Extensions from npm: `keel install <spec>` puts a package under the Keel home (or a trusted
// project's .keel/packages) with npm — from the registry the user's npm config names, without
// running install scripts unless asked — and records it in that scope's config with the version
// npm resolved; `keel update` moves recorded packages to the newest version their spec allows. The
// kernel loads recorded packages like any other extension folder (a project's only when trusted).
// Extensions take @keel/extension-sdk as a peer: every prefix links the host's own copy, so an
// installed extension runs against the SDK the host was built with, and npm refuses one whose
// peer range that SDK does not meet.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { configPaths } from "../config/paths.js";
import { readJsonFile } from "../config/read.js";
import { updateConfigFile } from "../config/write.js";
import { trustStatus, writeKeepingTrust } from "../trust/store.js";

export type PackageScope = "user" | "project";

export interface InstalledPackage {
  name: string;
  version: string;
  /** What the user asked npm for (a name, name@range, a tarball path or URL). */
  spec: string;
  scope: PackageScope;
  /** The package folder to load. */
  path: string;
}

export interface PackageError {
  type: "package";
  message: string;
}

export interface PackageWhere {
  keelHome: string;
  projectRoot: string;
}

const fail = (message: string): Result<never, PackageError> => err({ type: "package", message });

/**
 * The npm prefix packages of a scope live under. A project's packages are declared in its config
 * but installed under the Keel home (per project), never inside the repository: code a repository
 * ships is not what the user installed, and node_modules does not belong in the trust hash.
 */
export function packagesDir(scope: PackageScope, where: PackageWhere): string {
  if (scope === "user") return join(where.keelHome, "packages");
  const slug =
    where.projectRoot
      .replace(/^[/\\]+/, "")
      .replace(/[/\\:]+/g, "-")
      .replace(/[^A-Za-z0-9._-]/g, "_") || "root";
  return join(where.keelHome, "projects", slug, "packages");
}

function configFile(scope: PackageScope, where: PackageWhere): string {
  const paths = configPaths(where.keelHome, where.projectRoot);
  return scope === "user" ? paths.user : paths.project;
}

interface Recorded {
  name: string;
  version: string;
  spec: string;
}

function isRecorded(v: unknown): v is Recorded {
  const r = v as Recorded;
  return typeof r?.name === "string" && typeof r.version === "string" && typeof r.spec === "string";
}

/** The packages a scope's config records (missing or unreadable config: none). */
export function recordedPackages(scope: PackageScope, where: PackageWhere): InstalledPackage[] {
  const read = readJsonFile(configFile(scope, where));
  const list = read.isOk() ? (read.value as { packages?: unknown } | undefined)?.packages : undefined;
  if (!Array.isArray(list)) return [];
  const dir = packagesDir(scope, where);
  return list.filter(isRecorded).map((p) => ({ ...p, scope, path: join(dir, "node_modules", p.name) }));
}

function npm(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        npm_config_update_notifier: "false",
        npm_config_fund: "false",
        npm_config_audit: "false",
      },
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (e) => resolve({ code: 127, output: `npm could not be started: ${e.message}` }));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

const SDK = "@keel/extension-sdk";

/** The SDK this host runs extensions against: the package folder and its version. */
export function hostSdk(): { dir: string; version: string } | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(`${SDK}/package.json`);
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
    return { dir: dirname(manifest), version };
  } catch {
    return undefined;
  }
}

/**
 * The npm prefix, with the host's SDK as a `file:` dependency: npm links it (a symlink, nothing
 * fetched), so an extension's peer on the SDK is met by the host's copy. Written again on every
 * install, since the host may have moved (a reinstalled or upgraded keel).
 */
function ensurePrefix(dir: string): Result<void, PackageError> {
  const sdk = hostSdk();
  if (!sdk)
    return fail(`This host cannot find its own ${SDK}, which installed extensions share; reinstall Keel.`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "package.json");
  let manifest: { dependencies?: Record<string, string> } & Record<string, unknown> = {
    name: "keel-extension-packages",
    private: true,
  };
  if (existsSync(file)) {
    try {
      manifest = JSON.parse(readFileSync(file, "utf8")) as typeof manifest;
    } catch (e) {
      return fail(`${file} cannot be read (${(e as Error).message}); fix or remove it.`);
    }
  }
  manifest.dependencies = { ...manifest.dependencies, [SDK]: `file:${sdk.dir}` };
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  return ok(undefined);
}

/** npm's output cut to what says why, with the SDK conflict put in Keel's words. */
function npmFailure(action: string, spec: string, output: string): PackageError {
  const sdk = hostSdk();
  const peer = new RegExp(`peer ${SDK.replace("/", "\\/")}@"?([^"\\s]+)"? from (\\S+)`).exec(output);
  if (/ERESOLVE/.test(output) && peer && sdk)
    return {
      type: "package",
      message: `${peer[2]} needs ${SDK} ${peer[1]}, and this Keel provides ${sdk.version}: install a version of the extension made for this Keel, or update Keel.`,
    };
  return {
    type: "package",
    message: `npm could not ${action} ${spec}:\n${output.trim().split("\n").slice(-8).join("\n")}`,
  };
}

function dependencies(dir: string): Record<string, string> {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    return manifest.dependencies ?? {};
  } catch {
    return {};
  }
}

/** A trusted project's config written by Keel itself stays trusted (the user asked for it). */
function writeRecord(
  scope: PackageScope,
  where: PackageWhere,
  update: (list: Recorded[]) => Recorded[],
): Result<unknown, { message: string }> {
  const write = () =>
    updateConfigFile(configFile(scope, where), (config) => {
      const list = Array.isArray(config.packages) ? (config.packages as unknown[]).filter(isRecorded) : [];
      config.packages = update(list);
      return config;
    });
  if (scope !== "project") return write();
  const { written, trustLost } = writeKeepingTrust(where.projectRoot, { home: where.keelHome }, write);
  // Recorded, but the project will be asked about again: say so rather than succeed quietly.
  return trustLost && written.isOk()
    ? err({ message: `The package is recorded, but ${trustLost}.` })
    : written;
}

function projectAllowed(scope: PackageScope, where: PackageWhere): string | undefined {
  if (scope !== "project") return undefined;
  const status = trustStatus(where.projectRoot, { home: where.keelHome }).unwrapOr("untrusted");
  return status === "trusted"
    ? undefined
    : `${where.projectRoot} is not trusted: trust it first (keel -p /trust) to install packages for the project.`;
}

/**
 * Installs what a trusted project's config declares (a teammate's clone): each recorded package
 * at its recorded version.
 */
export async function installDeclared(
  options: PackageWhere & { allowScripts?: boolean },
): Promise<Result<InstalledPackage[], PackageError>> {
  const refused = projectAllowed("project", options);
  if (refused) return fail(refused);
  const out: InstalledPackage[] = [];
  for (const p of recordedPackages("project", options)) {
    const done = await install(registrySpec(p.spec) ? `${p.name}@${p.version}` : p.spec, p.spec, {
      ...options,
      scope: "project",
    });
    if (done.isErr()) return err(done.error);
    out.push(done.value);
  }
  return ok(out);
}

/**
 * Whether npm takes `spec` from the registry by name (`name`, `name@range`, `@scope/name@tag`),
 * as opposed to a tarball, a folder, a URL or a git repository.
 */
function registrySpec(spec: string): boolean {
  if (/\.(tgz|tar|tar\.gz)$/i.test(spec)) return false;
  return /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[^/\\:]*)?$/i.test(spec);
}

export function installPackage(
  spec: string,
  options: PackageWhere & { scope: PackageScope; allowScripts?: boolean },
): Promise<Result<InstalledPackage, PackageError>> {
  return install(spec, spec, options);
}

/** Installs `spec` and records the package as asked for by `recorded` (a declared one keeps its record). */
async function install(
  spec: string,
  recorded: string,
  options: PackageWhere & { scope: PackageScope; allowScripts?: boolean },
): Promise<Result<InstalledPackage, PackageError>> {
  if (!spec.trim()) return fail("keel install needs a package: a name, name@version, or a tarball.");
  if (spec === SDK || spec.startsWith(`${SDK}@`))
    return fail(`${SDK} is not an extension: Keel provides it to the extensions it installs.`);
  const refused = projectAllowed(options.scope, options);
  if (refused) return fail(refused);
  const dir = packagesDir(options.scope, options);
  const prefix = ensurePrefix(dir);
  if (prefix.isErr()) return err(prefix.error);
  const before = dependencies(dir);
  const args = ["install", "--prefix", dir, "--save", "--no-audit", "--no-fund", "--loglevel=error"];
  if (!options.allowScripts) args.push("--ignore-scripts");
  const installed = await npm([...args, spec], dir);
  if (installed.code !== 0) return err(npmFailure("install", spec, installed.output));
  const after = dependencies(dir);
  const name =
    Object.keys(after).find((n) => n !== SDK && before[n] !== after[n]) ??
    Object.keys(after).find(
      (n) => n !== SDK && (after[n] === spec || spec === n || spec.startsWith(`${n}@`)),
    );
  if (!name) return fail(`npm installed ${spec}, but Keel could not tell which package it is.`);
  const path = join(dir, "node_modules", name);
  let version: string;
  try {
    version = (JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return fail(`${name} was installed but has no readable package.json in ${path}.`);
  }
  const written = writeRecord(options.scope, options, (list) => [
    ...list.filter((p) => p.name !== name),
    { name, version, spec: recorded },
  ]);
  if (written.isErr()) return fail(written.error.message);
  return ok({ name, version, spec: recorded, scope: options.scope, path });
}

export async function uninstallPackage(
  name: string,
  options: PackageWhere & { scope: PackageScope },
): Promise<Result<InstalledPackage, PackageError>> {
  const refused = projectAllowed(options.scope, options);
  if (refused) return fail(refused);
  const known = recordedPackages(options.scope, options).find((p) => p.name === name || p.spec === name);
  if (!known) {
    const all = recordedPackages(options.scope, options).map((p) => p.name);
    return fail(
      `${name} is not installed${options.scope === "project" ? " for this project" : ""}` +
        (all.length > 0 ? ` (installed: ${all.join(", ")}).` : "."),
    );
  }
  const dir = packagesDir(options.scope, options);
  const removed = await npm(
    ["uninstall", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", known.name],
    dir,
  );
  if (removed.code !== 0) return fail(`npm could not uninstall ${known.name}:\n${removed.output.trim()}`);
  const written = writeRecord(options.scope, options, (list) => list.filter((p) => p.name !== known.name));
  if (written.isErr()) return fail(written.error.message);
  return ok(known);
}

export interface UpdatedPackage extends InstalledPackage {
  /** The version recorded before the update. */
  from: string;
}

/**
 * `keel update [name]`: each recorded registry package of the scope (or the one named) installed
 * again at the newest version its recorded spec allows (`name` means the latest), and the new
 * version recorded. Packages installed from a tarball, folder or git are left as they are, and
 * listed under `skipped`.
 */
export async function updatePackages(
  options: PackageWhere & { scope: PackageScope; name?: string; allowScripts?: boolean },
): Promise<Result<{ updated: UpdatedPackage[]; skipped: InstalledPackage[] }, PackageError>> {
  const refused = projectAllowed(options.scope, options);
  if (refused) return fail(refused);
  const recorded = recordedPackages(options.scope, options);
  const chosen = options.name
    ? recorded.filter((p) => p.name === options.name || p.spec === options.name)
    : recorded;
  if (options.name && chosen.length === 0)
    return fail(
      `${options.name} is not installed${options.scope === "project" ? " for this project" : ""}` +
        (recorded.length > 0 ? ` (installed: ${recorded.map((p) => p.name).join(", ")}).` : "."),
    );
  const updated: UpdatedPackage[] = [];
  const skipped: InstalledPackage[] = [];
  for (const p of chosen) {
    if (!registrySpec(p.spec)) {
      skipped.push(p);
      continue;
    }
    const target = p.spec === p.name ? `${p.name}@latest` : p.spec;
    const done = await install(target, p.spec, options);
    if (done.isErr()) return err(done.error);
    updated.push({ ...done.value, from: p.version });
  }
  return ok({ updated, skipped });
}
