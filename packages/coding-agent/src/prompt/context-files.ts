// Context files: the instructions the system prompt carries, read once when a session starts.
// Order (later files are the more specific, and the model weighs later text more):
//   1. the user's own: ~/.claude/CLAUDE.md and ~/.claude/rules/ (unless config `claude.userFiles`
//      is false), then the Keel home's AGENTS.md and CLAUDE.md;
//   2. each folder from the filesystem root down to cwd that trust admits (the trusted project's
//      own, folders above it in no project, an enclosing trusted project's): AGENTS.md,
//      CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, then .claude/rules/**/*.md;
// each file followed by the files it imports (`@path`, up to five hops deep). One file reached
// twice (a symlink, an import of a file already in, or the same text under two names) is in once.
// Block-level HTML comments are taken out, as Claude Code does. Their content is the project's to
// edit. Reads are bounded, regular files only, and Read deny rules apply; every file left out is
// said once. Rules scoped to `paths` are returned aside: the
// kernel tells the model of one when a matching file is touched (kernel/scoped-rules.ts).
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readFileBounded } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";
import { pathExists, realpathOrResolved as realOf } from "../fs/paths.js";
import { isInside } from "../permissions/paths.js";
import { findEnclosingRoot } from "../trust/root.js";
import { importCandidates, importReferences, MAX_IMPORT_DEPTH, withoutHtmlComments } from "./imports.js";
import { parseRule, ruleFiles } from "./rules.js";

/** The names read in each folder, in this order (CLAUDE.local.md: Claude Code's personal file). */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"] as const;
/** Claude Code's rules folder, read in each folder after its context files. */
export const RULES_DIR = ".claude/rules";
/** What of a context file reaches the model (the rest is cut off, with a notice). */
export const MAX_CONTEXT_BYTES = 64 * 1024;
/** What all context files together may bring; files past it are left out, with a notice. */
export const MAX_TOTAL_CONTEXT_BYTES = 256 * 1024;

export interface ContextFile {
  path: string;
  content: string;
  /** A rule that applies only to some files: its globs, relative to `base`. Not in the prompt. */
  scope?: { patterns: string[]; base: string };
}

export interface ContextFileOptions {
  cwd: string;
  /** The Keel home: its AGENTS.md and CLAUDE.md apply to every project. */
  home: string;
  /** Claude Code's user folder (`~/.claude`) when the user lets Keel read it; undefined: not read. */
  claudeHome?: string;
  /** For `@~/…` imports; default the parent of `claudeHome`, else `home`'s. */
  userHome?: string;
  projectRoot: string;
  /** Whether the project (and the context files between its root and cwd) is trusted. */
  trusted: boolean;
  /**
   * For a folder above the project root inside another project (a repository nested in one):
   * that project's trust as seen from `dir`. Default: untrusted.
   */
  trustAbove?: (enclosingRoot: string, dir: string) => "trusted" | "untrusted" | "changed";
  /** The Read deny rule covering `path`, if one does (its reason); the file is then left out. */
  denied?: (path: string) => Promise<string | undefined>;
  /** Told about a context file that exists but is left out, or cut short. */
  report?: (message: string, level: "info" | "warning") => void;
}

type Report = (message: string, level: "info" | "warning") => void;

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** One load: what is in so far, so a file reached twice is in once and the total stays bounded. */
class Collector {
  readonly files: ContextFile[] = [];
  private readonly reals = new Set<string>();
  private readonly texts = new Set<string>();
  private total = 0;
  private full = false;
  /** Folders (real paths) an import may read from. */
  readonly importRoots: string[];
  readonly userHome: string;

  constructor(
    readonly options: ContextFileOptions,
    readonly report: Report,
  ) {
    this.importRoots = [realOf(resolve(options.home))];
    if (options.claudeHome) this.importRoots.push(realOf(resolve(options.claudeHome)));
    if (options.trusted) this.importRoots.push(realOf(resolve(options.projectRoot)));
    this.userHome = options.userHome ?? dirname(options.claudeHome ?? options.home);
  }

  seen(path: string): boolean {
    return this.reals.has(realOf(path));
  }

  /**
   * Reads `path` within bounds (undefined when it must be left out, said once). `quiet` leaves a
   * missing file unsaid (an import of a word that only looks like a path).
   */
  async read(path: string, quiet = false): Promise<string | undefined> {
    const real = realOf(path);
    if (this.reals.has(real)) return undefined;
    // The user wrote it for the model: leaving it out must not go unnoticed.
    for (const candidate of new Set([path, real])) {
      const rule = await this.options.denied?.(candidate);
      if (rule !== undefined) {
        this.reals.add(real);
        this.report(`${path} is not in the system prompt: ${rule}.`, "warning");
        return undefined;
      }
    }
    const outcome = readFileBounded(path, MAX_CONTEXT_BYTES);
    if (outcome.isErr()) {
      if (quiet && outcome.error.type === "unreadable" && outcome.error.code === "ENOENT") return undefined;
      this.reals.add(real);
      this.report(
        `${path} is not in the system prompt: ${outcome.error.message} (context files are read only when they are regular files).`,
        "warning",
      );
      return undefined;
    }
    this.reals.add(real);
    const read = outcome.value;
    if (read.truncated)
      this.report(
        `${path} is ${read.size} bytes; only its first ${MAX_CONTEXT_BYTES} bytes are in the system prompt.`,
        "info",
      );
    return read.bytes.toString("utf8");
  }

  /** Adds a file (and then its imports) unless its text is in already or the total is spent. */
  async add(path: string, raw: string, scope?: ContextFile["scope"], depth = 0): Promise<void> {
    const content = withoutHtmlComments(raw);
    const key = `${scope ? JSON.stringify(scope) : ""}\n${content.trim()}`;
    if (content.trim() === "" || this.texts.has(key)) return;
    const bytes = Buffer.byteLength(content);
    if (this.total + bytes > MAX_TOTAL_CONTEXT_BYTES) {
      if (!this.full)
        this.report(
          `${path} and the context files after it are not in the system prompt: together they pass ${MAX_TOTAL_CONTEXT_BYTES} bytes.`,
          "warning",
        );
      this.full = true;
      return;
    }
    this.texts.add(key);
    this.total += bytes;
    this.files.push({ path, content, ...(scope ? { scope } : {}) });
    await this.imports(path, content, depth + 1);
  }

  /** The files `content` imports, each after the file that names it. */
  private async imports(from: string, content: string, depth: number): Promise<void> {
    const refs = importReferences(content);
    if (refs.length === 0) return;
    if (depth > MAX_IMPORT_DEPTH) {
      this.report(
        `${from}: its imports are not followed (more than ${MAX_IMPORT_DEPTH} hops of @imports).`,
        "info",
      );
      return;
    }
    for (const ref of refs) {
      const candidates = importCandidates(ref, dirname(from), this.userHome);
      const target = candidates.find((c) => pathExists(c));
      // `@someone` in prose is not a file, `@src/` names a folder: nothing to say.
      if (target === undefined || this.seen(target) || isDirectory(target)) continue;
      const real = realOf(target);
      if (!this.importRoots.some((root) => isInside(real, root))) {
        this.reals.add(real);
        this.report(
          `${target} (imported by ${from}) is not in the system prompt: imports are read only from the trusted project, ~/.claude and the Keel home.`,
          "info",
        );
        continue;
      }
      const text = await this.read(target, true);
      if (text !== undefined) await this.add(target, text, undefined, depth);
    }
  }

  /** A folder's context files, then the rules of `rules.dir` (globs relative to `rules.base`). */
  async folder(
    dir: string,
    names: readonly string[],
    rules?: { dir: string; base: string; own?: boolean },
  ): Promise<void> {
    for (const name of names) {
      const path = join(dir, name);
      if (!pathExists(path) || this.seen(path)) continue;
      const text = await this.read(path);
      if (text !== undefined) await this.add(path, text);
    }
    if (rules) await this.rules(rules.dir, rules.base, rules.own === true);
  }

  /**
   * A project's rule linked out of the project is left out (a checked-in link must not bring the
   * user's other files into the prompt); in the user's own rules folder a link is the user's.
   */
  private async rules(dir: string, base: string, own: boolean): Promise<void> {
    for (const path of ruleFiles(dir)) {
      if (this.seen(path)) continue;
      const real = realOf(path);
      if (!own && !this.importRoots.some((root) => isInside(real, root))) {
        this.reals.add(real);
        this.report(`${path} is not in the system prompt: it leads outside the project (${real}).`, "info");
        continue;
      }
      const text = await this.read(path);
      if (text === undefined) continue;
      const rule = parseRule(text);
      if (rule.problem) this.report(`${path}: ${rule.problem}.`, "warning");
      await this.add(path, rule.body, rule.paths ? { patterns: rule.paths, base } : undefined);
    }
  }
}

/**
 * Why a folder's context files are left out: the untrusted project itself (silently: the trust
 * prompt says so), or an enclosing project that is not trusted (said once per folder).
 */
type NotAdmitted =
  | { type: "project_untrusted"; message: string }
  | { type: "enclosing_untrusted"; message: string };

/**
 * Whether a folder's context files may be read: the enclosing trusted project (its imports may
 * read there) or none; else why not.
 */
function admitted(dir: string, options: ContextFileOptions): Result<string | undefined, NotAdmitted> {
  const silently = err<never, NotAdmitted>({
    type: "project_untrusted",
    message: "the project is not trusted",
  });
  if (isInside(dir, options.projectRoot)) return options.trusted ? ok(undefined) : silently;
  const enclosing = findEnclosingRoot(dir, options.home);
  // A folder above the project in no project: trusting the project approved its file.
  if (enclosing === undefined) return options.trusted ? ok(undefined) : silently;
  const status = options.trustAbove?.(enclosing, dir) ?? "untrusted";
  // Its imports may read within that project, which the user trusted too.
  if (status === "trusted") return ok(realOf(enclosing));
  return err({
    type: "enclosing_untrusted",
    message:
      status === "changed"
        ? `it belongs to ${enclosing}, which changed since you trusted it (/trust it again there)`
        : `it belongs to ${enclosing}, a project that is not trusted`,
  });
}

export async function loadContextFiles(options: ContextFileOptions): Promise<ContextFile[]> {
  const report = options.report ?? (() => {});
  const collector = new Collector(options, report);
  const root = realOf(resolve(options.projectRoot));
  if (options.claudeHome)
    await collector.folder(options.claudeHome, ["CLAUDE.md"], {
      dir: join(options.claudeHome, "rules"),
      base: root,
      own: true,
    });
  await collector.folder(options.home, ["AGENTS.md", "CLAUDE.md"]);
  const dirs: string[] = [];
  // Real paths, like the project root they are compared with.
  for (let dir = realOf(resolve(options.cwd)); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const keelHome = realOf(resolve(options.home));
  const userHome = realOf(resolve(collector.userHome));
  for (const dir of dirs) {
    if (dir === keelHome) continue;
    const admission = admitted(dir, options);
    if (admission.isErr()) {
      const said = admission.error.type === "enclosing_untrusted";
      const name = said && CONTEXT_FILE_NAMES.find((n) => pathExists(join(dir, n)));
      if (name) report(`${join(dir, name)} is not read: ${admission.error.message}.`, "info");
      continue;
    }
    if (admission.value) collector.importRoots.push(admission.value);
    // The user's home as a folder above the project: its ~/.claude is the user's files (read
    // above, or opted out), not a project's.
    if (dir === userHome)
      await collector.folder(
        dir,
        CONTEXT_FILE_NAMES.filter((n) => !n.startsWith(".claude/")),
      );
    else await collector.folder(dir, CONTEXT_FILE_NAMES, { dir: join(dir, RULES_DIR), base: dir });
  }
  return collector.files;
}
