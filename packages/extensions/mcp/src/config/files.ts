// Reading and editing the files servers live in, for `keel mcp …`: the user's config
// (`extensions.mcp.config.servers`) and a project's `.mcp.json` (`mcpServers`). Keel's config
// files may hold comments (JSONC): they are read as such, and an edit changes only the servers'
// text, keeping every other key and every comment outside it. Writes are atomic, and a file that
// does not parse is refused, never replaced.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import { applyEdits, modify, type ParseError, parse, printParseErrorCode } from "jsonc-parser";
import { err, ok, type Result } from "neverthrow";

export interface FileProblem {
  type: "invalid_file";
  path: string;
  message: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const JSONC = { allowTrailingComma: true, disallowComments: false };

function readText(path: string): Result<{ value: Json; text: string } | undefined, FileProblem> {
  if (!existsSync(path)) return ok(undefined);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return err({
      type: "invalid_file",
      path,
      message: `${path} cannot be read (${(error as Error).message})`,
    });
  }
  const errors: ParseError[] = [];
  const value = parse(text, errors, JSONC) as unknown;
  const first = errors[0];
  if (first) {
    const line = text.slice(0, first.offset).split("\n").length;
    return err({
      type: "invalid_file",
      path,
      message: `${path}:${line} is not valid JSON (${printParseErrorCode(first.error)}); nothing was changed`,
    });
  }
  if (!isObject(value))
    return err({ type: "invalid_file", path, message: `${path} does not hold a JSON object` });
  return ok({ value, text });
}

export function readJsonObject(path: string): Result<Json | undefined, FileProblem> {
  return readText(path).map((read) => read?.value);
}

/** Through a symlink (a dotfile manager's config.json) to its target; a new file is 0600. */
function writeAtomically(path: string, text: string): Result<void, FileProblem> {
  return writeFileAtomic(path, text.endsWith("\n") ? text : `${text}\n`, { newFileMode: 0o600 })
    .map(() => undefined)
    .mapErr((e) => ({
      type: "invalid_file" as const,
      path,
      message: `could not write ${path}: ${e.message}`,
    }));
}

export type Scope = "user" | "project";

export interface ServerFile {
  path: string;
  scope: Scope;
}

export function userConfigFile(keelHome: string): ServerFile {
  return { path: join(keelHome, "config.json"), scope: "user" };
}

export function projectMcpJson(projectRoot: string): ServerFile {
  return { path: join(projectRoot, ".mcp.json"), scope: "project" };
}

function serversOf(json: unknown, scope: Scope): Record<string, unknown> {
  if (!isObject(json)) return {};
  if (scope === "project") return isObject(json.mcpServers) ? json.mcpServers : {};
  const extensions = isObject(json.extensions) ? json.extensions : {};
  const mcp = isObject(extensions.mcp) ? extensions.mcp : {};
  const config = isObject(mcp.config) ? mcp.config : {};
  return isObject(config.servers) ? config.servers : {};
}

/** The servers of one file, as written (unexpanded). */
export function serversIn(file: ServerFile): Result<Record<string, unknown>, FileProblem> {
  return readJsonObject(file.path).map((json) => serversOf(json, file.scope));
}

/** Rewrites the servers of one file with `change`, keeping everything else in it (comments too). */
export function editServers(
  file: ServerFile,
  change: (servers: Record<string, unknown>) => Record<string, unknown>,
): Result<void, FileProblem> {
  const read = readText(file.path);
  if (read.isErr()) return err(read.error);
  const next = change({ ...serversOf(read.value?.value, file.scope) });
  const path = file.scope === "project" ? ["mcpServers"] : ["extensions", "mcp", "config", "servers"];
  const text = read.value?.text.trim() ? read.value.text : "{}\n";
  const edited = applyEdits(
    text,
    modify(text, path, next, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } }),
  );
  // The edit must parse and hold exactly the new servers; the rest of the file as it was.
  const errors: ParseError[] = [];
  const check = parse(edited, errors, JSONC) as unknown;
  if (errors.length > 0 || JSON.stringify(serversOf(check, file.scope)) !== JSON.stringify(next))
    return err({
      type: "invalid_file",
      path: file.path,
      message: `${file.path}: the edit could not be made; nothing was changed`,
    });
  return writeAtomically(file.path, edited);
}

/** The project root a session in `cwd` trusts: the nearest folder with .git or .keel, or cwd. */
export function projectRootOf(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git")) || existsSync(join(dir, ".keel"))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}
