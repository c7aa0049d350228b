// Which repository git would use from a directory, and whether that repository's own config (which
// a repository can ship: a committed bare repo, a nested .git, an unpacked archive) names programs
// that read-only git commands would run. Keys are judged against an allow-list of inert ones from
// git-config(1) of git 2.39.5; anything else (diff.external, core.fsmonitor, filter.*, pager.*,
// include.*, …) makes git reads ask.
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { namesIn } from "../fs/paths.js";
import { isInside, lstatQuiet, statQuiet } from "./paths.js";

/** Environment variables that make git use another repository, config or program. */
const GIT_ENV =
  /^GIT_(DIR|WORK_TREE|COMMON_DIR|CONFIG|CONFIG_GLOBAL|CONFIG_SYSTEM|CONFIG_PARAMETERS|CONFIG_COUNT|EXEC_PATH|EXTERNAL_DIFF|SSH|SSH_COMMAND|ASKPASS|EDITOR|SEQUENCE_EDITOR|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|INDEX_FILE|NAMESPACE)$/;

export function gitEnvironmentRisk(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const name = Object.keys(env).find((k) => GIT_ENV.test(k) && env[k] !== undefined && env[k] !== "");
  return name ? `the environment sets ${name}, which changes the repository or programs git uses` : undefined;
}

/** Every key section whose keys are all inert for commands that only read. */
const INERT_SECTIONS = new Set([
  "advice",
  "alias", // aliases never replace a built-in command, and every read git command is built in
  "author",
  "blame",
  "color",
  "column",
  "committer",
  "fetch",
  "feature",
  "gc",
  "grep",
  "gui",
  "i18n",
  "index",
  "init",
  "lfs",
  "maintenance",
  "pack",
  "pull",
  "push",
  "rebase",
  "rerere",
  "safe", // ignored in repository config
  "status",
  "tag",
  "user",
  "branch", // remote, merge, rebase, description, and keys of other tools
  "url", // insteadOf rewrites only matter to commands that reach a remote
  "commit",
]);

/** Inert keys of sections that also hold dangerous ones. */
const INERT_KEYS = new Set(
  [
    "core.repositoryformatversion core.filemode core.bare core.logallrefupdates core.ignorecase",
    "core.precomposeunicode core.symlinks core.autocrlf core.eol core.safecrlf core.checkstat",
    "core.trustctime core.quotepath core.abbrev core.commentchar core.compression core.loosecompression",
    "core.bigfilethreshold core.deltabasecachelimit core.packedgitwindowsize core.packedgitlimit",
    "core.preloadindex core.untrackedcache core.splitindex core.fsync core.fsyncmethod",
    "core.fsyncobjectfiles core.multipackindex core.sparsecheckout core.sparsecheckoutcone",
    // The one hook a read runs (post-index-change, when status or diff refresh the index) is
    // looked for where core.hooksPath leads (git-hooks.ts); the key itself names no program.
    "core.hookspath core.whitespace core.warnambiguousrefs core.protecthfs core.protectntfs",
    "core.sharedrepository core.attributesfile core.excludesfile core.notesref core.fsmonitorhookversion",
    "core.createobject core.packedrefstimeout core.filesreflocktimeout core.checkroundtripencoding",
    "extensions.worktreeconfig extensions.objectformat extensions.preciousobjects",
    "diff.renames diff.renamelimit diff.algorithm diff.mnemonicprefix diff.noprefix diff.context",
    "diff.interhunkcontext diff.indentheuristic diff.colormoved diff.colormovedws diff.submodule",
    "diff.statgraphwidth diff.statnamewidth diff.suppressblankempty diff.ignoresubmodules",
    "diff.wserrorhighlight diff.relative diff.dirstat diff.autorefreshindex diff.tool diff.guitool",
    "merge.conflictstyle merge.ff merge.log merge.renames merge.renamelimit merge.directoryrenames",
    "merge.autostash merge.defaulttoupstream merge.stat merge.verbosity merge.tool",
    "log.date log.decorate log.abbrevcommit log.follow log.graphcolors log.mailmap log.showroot",
    "log.excludedecoration log.diffmerges log.initialdecorationset",
    "submodule.recurse submodule.active submodule.fetchjobs submodule.propagatebranches",
    "remote.pushdefault",
  ]
    .join(" ")
    .split(" "),
);

/** Keys of `remote.<name>.` and `submodule.<name>.` that run nothing (uploadpack, vcs, update=!cmd do). */
const INERT_REMOTE = new Set([
  "url",
  "pushurl",
  "fetch",
  "push",
  "tagopt",
  "prune",
  "prunetags",
  "mirror",
  "skipdefaultupdate",
  "skipfetchall",
  "gh-resolved",
]);
const INERT_SUBMODULE = new Set([
  "url",
  "path",
  "branch",
  "active",
  "ignore",
  "shallow",
  "fetchrecursesubmodules",
]);

const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i;

/** Why `key = value` (section lowercased, subsection as written) is not inert, or undefined. */
function keyRisk(section: string, sub: string | undefined, key: string, value: string): string | undefined {
  const full = sub === undefined ? `${section}.${key}` : `${section}.${sub}.${key}`;
  if (INERT_SECTIONS.has(section)) return undefined;
  if (sub === undefined) {
    if (full === "core.fsmonitor") return BOOLEAN.test(value.trim()) ? undefined : full;
    if (full === "log.showsignature") return full;
    return INERT_KEYS.has(full) ? undefined : full;
  }
  if (section === "remote") return INERT_REMOTE.has(key) ? undefined : full;
  if (section === "submodule") return INERT_SUBMODULE.has(key) ? undefined : full;
  return full;
}

/** Why `section[.sub].key = value` (as `git -c` writes it) is not inert, or undefined. */
export function configKeyRisk(name: string, value: string): string | undefined {
  const first = name.indexOf(".");
  const last = name.lastIndexOf(".");
  if (first === -1 || last === name.length - 1) return name;
  const section = name.slice(0, first).toLowerCase();
  const key = name.slice(last + 1).toLowerCase();
  const sub = last === first ? undefined : name.slice(first + 1, last);
  return keyRisk(section, sub, key, value);
}

export interface ConfigEntry {
  /** Lower case. */
  section: string;
  /** As written. */
  sub?: string;
  /** Lower case. */
  key: string;
  value: string;
}

/**
 * The entries of a git config file, or why it could not be read. Implements enough of
 * git-config(1)'s syntax: sections `[a]`, `[a "b"]`, `[a.b]`, keys with optional values,
 * quotes, `#`/`;` comments and backslash continuations.
 */
export function configEntries(text: string): ConfigEntry[] | string {
  const entries: ConfigEntry[] = [];
  let section: string | undefined;
  let sub: string | undefined;
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!.replace(/\r$/, "");
    let rest = line.trimStart();
    if (rest === "" || rest.startsWith("#") || rest.startsWith(";")) continue;
    if (rest.startsWith("[")) {
      const m = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(rest);
      if (!m) return "a section header git config parsing did not recognise";
      const name = m[1]!.toLowerCase();
      if (m[2] !== undefined) {
        section = name;
        sub = m[2].replace(/\\(.)/g, "$1");
      } else {
        const dot = name.indexOf(".");
        section = dot === -1 ? name : name.slice(0, dot);
        sub = dot === -1 ? undefined : m[1]!.slice(dot + 1);
      }
      rest = rest.slice(m[0].length).trimStart();
      if (rest === "" || rest.startsWith("#") || rest.startsWith(";")) continue;
    }
    const km = /^([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[#;])/.exec(rest);
    if (!km || section === undefined) return "a line git config parsing did not recognise";
    let value = km[2] === "=" ? rest.slice(km[0].length) : "";
    // A value may continue on the next line after a trailing backslash.
    while (/(^|[^\\])(\\\\)*\\$/.test(value) && n + 1 < lines.length) {
      line = lines[++n]!;
      value = value.slice(0, -1) + line;
    }
    entries.push({
      section,
      ...(sub === undefined ? {} : { sub }),
      key: km[1]!.toLowerCase(),
      value: unquote(value),
    });
  }
  return entries;
}

/** The first key of a git config file that is not inert, or a reason the file could not be read. */
export function configRisk(text: string): string | undefined {
  const entries = configEntries(text);
  if (typeof entries === "string") return entries;
  for (const e of entries) {
    const risk = keyRisk(e.section, e.sub, e.key, e.value);
    if (risk) return risk;
  }
  return undefined;
}

function unquote(value: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === "\\" && i + 1 < value.length) out += value[++i];
    else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

/** git's own test for a repository directory (what makes a bare repository): HEAD, objects/, refs/. */
function looksLikeGitDir(dir: string): boolean {
  const is = (p: string, dirOnly: boolean) => {
    const s = statQuiet(p);
    return s !== undefined && (dirOnly ? s.isDirectory() : s.isFile());
  };
  return is(join(dir, "HEAD"), false) && is(join(dir, "objects"), true) && is(join(dir, "refs"), true);
}

export interface Found {
  /** The work tree root (or, for a bare repository, the repository itself). */
  top: string;
  gitDir: string;
}

/** Git's discovery from `dir` upward: `.git` (a directory or a `gitdir:` file), or a bare repository. */
export function discover(dir: string): Found | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, ".git");
    const info = lstatQuiet(dotGit);
    if (info !== undefined) {
      if (statQuiet(dotGit)?.isFile()) {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "");
        if (m) return { top: d, gitDir: isAbsolute(m[1]!) ? m[1]! : resolve(d, m[1]!) };
      }
      return { top: d, gitDir: dotGit };
    }
    if (looksLikeGitDir(d)) return { top: d, gitDir: d };
    if (dirname(d) === d) return undefined;
  }
}

export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

const MAX_MODULE_CONFIGS = 64;

/** Config files a repository carries: its own, the common dir's, per-worktree, and submodules'. */
export function configFiles(gitDir: string): string[] | undefined {
  const common = readText(join(gitDir, "commondir"))?.trim();
  const commonDir = common ? resolve(gitDir, common) : gitDir;
  const files = [join(commonDir, "config"), join(gitDir, "config.worktree")];
  if (commonDir !== gitDir) files.push(join(gitDir, "config"));
  // `git status` recurses into submodules, whose config lives under modules/.
  const pending = [join(commonDir, "modules")];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const names = namesIn(dir);
    if (names.includes("config")) files.push(join(dir, "config"));
    for (const name of names) {
      if (name === "objects" || name === "refs" || name === "logs") continue;
      const child = join(dir, name);
      if (statQuiet(child)?.isDirectory()) pending.push(child);
    }
    if (files.length > MAX_MODULE_CONFIGS) return undefined;
  }
  return files.filter((f) => existsSync(f));
}

/**
 * Why running a read-only git command in `dir` may run a program the repository chose, or
 * undefined: git would use the workspace's own repository (or one above it), and its config
 * holds only inert keys.
 */
export function gitRepositoryRisk(dir: string, workspace: string): string | undefined {
  const found = discover(dir);
  if (found === undefined) return undefined; // not a repository: git only reads the user's config
  if (isInside(found.top, workspace) && found.top !== workspace) {
    const rel = relative(workspace, found.top) || ".";
    const kind = found.gitDir === found.top ? "a bare repository" : "a nested repository";
    return `git would use ${kind} inside the workspace (${rel}), whose config the workspace ships`;
  }
  const files = configFiles(found.gitDir);
  if (files === undefined) return "the repository has too many submodule configs to check";
  for (const f of files) {
    const text = readText(f);
    if (text === undefined) return `the repository's git config ${f} could not be read`;
    const risk = configRisk(text);
    if (risk) {
      const where = isInside(f, workspace) ? relative(workspace, f) : f;
      return `the repository's git config (${where}) sets ${risk}, which can run a program`;
    }
  }
  return undefined;
}
