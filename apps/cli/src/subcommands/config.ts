// keel config get | set | unset | list: Keel's settings in the user's config file (~/.keel) or a
// trusted project's .keel/config.json, by dotted key. The reading, validation and comment-keeping
// writes are the kernel's (config/settings.ts); this parses, prints and picks exit codes.
import { parseArgs } from "node:util";
import {
  type ConfigLayer,
  displayPath,
  flattenSettings,
  getSetting,
  LAYER_ORDER,
  listSettings,
  loadConfig,
  parseSettingValue,
  type SettingError,
  type SettingScope,
  setSetting,
  settingsFile,
  settingWarnings,
  unsetSetting,
  writeKeepingTrust,
} from "@keel/coding-agent";
import { EXIT } from "../exit-codes.js";
import type { SubcommandIO } from "./index.js";

export const CONFIG_USAGE = `keel config — Keel's settings, by dotted key

  keel config get <key> [--user|--project]     the value (without a scope: the one in effect here)
  keel config set <key> <value> [--project]    write it to ~/.keel/config.json (--project: this
                                               trusted project's .keel/config.json); <value> is
                                               JSON when it parses (10, true, ["a"]), else text
  keel config unset <key> [--project]          remove it
  keel config list [--user|--project] [--json] every setting of each file; without a scope, every
                                               file in effect here, Claude Code's settings files
                                               included, each value marked when another file wins

Keys: model, permissions.mode, permissions.allow, stream.maxRetries, compaction.threshold,
agents.maxConcurrent, extensions.<id>.enabled, extensions.<id>.config…, env.<NAME>, …
A value the file would be refused with at startup is refused here and nothing is written.
`;

const OPTIONS = {
  user: { type: "boolean" },
  project: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

function at(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function configCommand(argv: string[], io: SubcommandIO): number {
  const fail = (message: string, code: number = EXIT.usage) => {
    io.stderr(`keel config: ${message}\n`);
    return code;
  };
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
  const { values, positionals } = parsed;
  const [action, key, ...rest] = positionals;
  if (values.help || action === undefined) {
    io.stdout(CONFIG_USAGE);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  if (values.user && values.project) return fail("pick one of --user and --project.");
  const where = { keelHome: io.keelHome, projectRoot: io.workspace?.projectRoot ?? io.cwd };
  const trusted = io.workspace?.trusted === true;
  const scoped: SettingScope | undefined = values.project ? "project" : values.user ? "user" : undefined;
  if (scoped === "project" && !trusted)
    return fail(
      `the project ${displayPath(where.projectRoot)} is not trusted, so keel does not read or write its .keel/config.json; trust it first (keel -p "/trust yes", or /trust in keel).`,
    );
  const settingFailed = (e: SettingError) =>
    fail(e.message, e.type === "setting_key" || e.type === "config_invalid" ? EXIT.usage : EXIT.failed);
  const wants = (n: number, shape: string) =>
    (
      n === 1
        ? key !== undefined && rest.length === 0
        : n === 2
          ? key !== undefined && rest.length === 1
          : key === undefined
    )
      ? undefined
      : fail(`usage: keel config ${shape}`);

  switch (action) {
    case "get": {
      const bad = wants(1, "get <key> [--user|--project]");
      if (bad !== undefined) return bad;
      let value: unknown;
      if (scoped) {
        const got = getSetting(key!, scoped, where);
        if (got.isErr()) return settingFailed(got.error);
        value = got.value;
      } else {
        // In effect here: the layers merged as a session would (project ones only when trusted).
        const checked = getSetting(key!, "user", where);
        if (checked.isErr()) return settingFailed(checked.error);
        const loaded = loadConfig({ cwd: io.cwd, home: io.keelHome, trusted, reportUntrusted: false });
        if (loaded.isErr()) return fail(loaded.error.message, EXIT.failed);
        value = at(loaded.value.config, key!.split("."));
      }
      if (value === undefined) return fail(`${key} is not set.`, EXIT.failed);
      io.stdout(`${values.json ? JSON.stringify(value) : show(value)}\n`);
      return EXIT.ok;
    }
    case "set":
    case "unset": {
      const bad =
        action === "set" ? wants(2, "set <key> <value> [--project]") : wants(1, "unset <key> [--project]");
      if (bad !== undefined) return bad;
      const scope = scoped ?? "user";
      const write = () =>
        action === "set"
          ? setSetting(key!, parseSettingValue(rest[0]!), scope, where)
          : unsetSetting(key!, scope, where);
      // The user changed their trusted project through keel: it stays trusted.
      const { written: done, trustLost } =
        scope === "project"
          ? writeKeepingTrust(where.projectRoot, { home: io.keelHome }, write)
          : { written: write() };
      if (done.isErr()) return settingFailed(done.error);
      if (trustLost) io.stderr(`keel config: ${trustLost}\n`);
      if (action === "set")
        for (const w of settingWarnings(key!, scope, where)) io.stderr(`keel config: ${w}\n`);
      io.stderr(
        `keel config: ${action === "set" ? `${key} set` : `${key} removed`} in ${displayPath(done.value)}\n`,
      );
      return EXIT.ok;
    }
    case "list": {
      const bad = wants(0, "list [--user|--project] [--json]");
      if (bad !== undefined) return bad;
      if (!scoped) return listInEffect(io, trusted, values.json === true);
      const scopes: SettingScope[] = [scoped];
      const out: Record<string, Record<string, unknown>> = {};
      for (const scope of scopes) {
        const listed = listSettings(scope, where);
        if (listed.isErr()) return settingFailed(listed.error);
        out[scope] = Object.fromEntries(listed.value);
        if (!values.json) {
          io.stdout(`${scope}: ${displayPath(settingsFile(scope, where))}\n`);
          if (listed.value.length === 0) io.stdout("  (nothing set)\n");
          for (const [k, v] of listed.value) io.stdout(`  ${k} = ${JSON.stringify(v)}\n`);
        }
      }
      if (values.json) io.stdout(`${JSON.stringify(out)}\n`);
      return EXIT.ok;
    }
    default:
      return fail(`unknown action "${action}"; use get, set, unset or list (keel config --help).`);
  }
}

const LAYER_NAMES: Record<ConfigLayer, string> = {
  user: "user",
  project: "project",
  projectLocal: "project (local)",
  claudeUser: "Claude Code, user",
  claudeProject: "Claude Code, project",
  claudeProjectLocal: "Claude Code, project (local)",
  claudeSession: "Claude Code, --settings",
};

/** Settings whose values add up across files rather than one replacing another. */
const adds = (key: string) =>
  /^(permissions\.(allow|ask|deny)|hooks\.[^.]+|additionalDirectories)$/.test(key);

/**
 * Every file in effect here, lowest first, each value with where it is overridden: Keel's own
 * files win over Claude Code's, a project's over the user's.
 */
function listInEffect(io: SubcommandIO, trusted: boolean, json: boolean): number {
  const loaded = loadConfig({ cwd: io.cwd, home: io.keelHome, trusted, reportUntrusted: false });
  if (loaded.isErr()) {
    io.stderr(`keel config: ${loaded.error.message}\n`);
    return EXIT.failed;
  }
  const { layers, sources } = loaded.value;
  const out: Record<string, Record<string, unknown>> = {};
  const present = LAYER_ORDER.filter((l) => layers[l] !== undefined);
  for (const layer of present) {
    const source = sources.find((s) => s.layer === layer)!;
    const settings = flattenSettings(layers[layer]);
    out[layer] = Object.fromEntries(settings);
    if (json) continue;
    io.stdout(`${LAYER_NAMES[layer]}: ${displayPath(source.path)}\n`);
    if (settings.length === 0) io.stdout("  (nothing set)\n");
    for (const [k, v] of settings) {
      const winner = adds(k)
        ? undefined
        : present
            .slice(present.indexOf(layer) + 1)
            .reverse()
            .find((higher) =>
              flattenSettings(layers[higher]).some(
                ([hk]) => hk === k || hk.startsWith(`${k}.`) || k.startsWith(`${hk}.`),
              ),
            );
      const note = winner
        ? `  (overridden by ${displayPath(sources.find((s) => s.layer === winner)!.path)})`
        : "";
      io.stdout(`  ${k} = ${JSON.stringify(v)}${note}\n`);
    }
    if (source.ignored && source.ignored.length > 0)
      io.stdout(`  (not used by Keel: ${source.ignored.join(", ")})\n`);
  }
  if (json) io.stdout(`${JSON.stringify(out)}\n`);
  else {
    if (present.length === 0) io.stdout("(nothing set)\n");
    if (!trusted)
      io.stdout(
        `(the project ${displayPath(loaded.value.projectRoot)} is not trusted: its settings are not read)\n`,
      );
  }
  return EXIT.ok;
}
