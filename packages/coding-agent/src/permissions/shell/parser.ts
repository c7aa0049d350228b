// Parses shell scripts with tree-sitter-bash (WASM) into the simple commands and redirects they run.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { err, ok, type Result } from "neverthrow";
import type { Node, Parser } from "web-tree-sitter";
import { importEsm } from "../../esm-import.js";
import { keepWasmOnBaseline } from "./wasm-tiering.js";

/** One argv word. `static` = its value is known without running anything (no $x, $(…), globs of braces). */
export interface ShellWord {
  value: string;
  static: boolean;
  /** Unquoted source text; what prefix rules match when the value is not static. */
  raw: string;
  /** Unquoted leading `~` (the shell would expand it to $HOME). */
  tilde: boolean;
  /**
   * Set when the word has unquoted `*`, `?` or `[`: the pattern the shell expands against the
   * filesystem, with quoted characters escaped by `\`. Quoted globs (`'*.ts'`) are plain text.
   */
  glob?: string;
  /**
   * Set when the word is dynamic only through plain `$NAME` / `${NAME}` expansions or a leading
   * `~user`: its pieces, so a checker that knows those values can compute the word.
   */
  parts?: WordPart[];
}

export type WordPart =
  | { text: string; quoted: boolean }
  | { variable: string; quoted: boolean }
  /** `~user` at the start of the word: that user's home directory. */
  | { user: string };

export interface ShellRedirect {
  kind: "write" | "read" | "dup";
  op: string;
  target?: ShellWord;
}

export interface ShellCommand {
  /** `FOO=1 cmd`: prefix assignments (or a bare `FOO=1` statement when `words` is empty). */
  assignments: { name: string; value: ShellWord }[];
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** Reads a pipe from an earlier pipeline stage (`curl … | sh`). */
  pipedInput: boolean;
  source: string;
  /**
   * Runs in this shell whenever the script gets this far: not in a subshell, pipeline,
   * substitution, function body, condition or loop, not after `&&`/`||`, not in the background.
   * Only then does a `cd` surely move later commands.
   */
  certain?: boolean;
}

export interface ShellAnalysis {
  commands: ShellCommand[];
  /** Redirects on compound statements (`{ a; b; } > f`), not tied to one command. */
  redirects: ShellRedirect[];
}

export type ShellParseError = { type: "shell_unparseable"; message: string };

const MAX_SCRIPT_CHARS = 64 * 1024;

let parserPromise: Promise<Parser> | undefined;

/**
 * The bash grammar ships beside the module that loads it (the package's dist/, and a bundle that
 * inlines this module, such as the keel CLI's); the sources and tests find it in tree-sitter-bash.
 */
function grammarPath(): string {
  const beside = fileURLToPath(new URL("./tree-sitter-bash.wasm", import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/**
 * Loads the WASM grammar once per process; every later parse is synchronous. The module itself
 * is imported here too, so a run that never checks a shell command never loads it.
 */
export function loadShellParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    const { Language, Parser } = (await importEsm("web-tree-sitter")) as typeof import("web-tree-sitter");
    keepWasmOnBaseline();
    await Parser.init();
    const language = await Language.load(grammarPath());
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserPromise;
}

export function parseShell(parser: Parser, script: string): Result<ShellAnalysis, ShellParseError> {
  if (script.length > MAX_SCRIPT_CHARS) {
    return err({
      type: "shell_unparseable",
      message: `the command is longer than ${MAX_SCRIPT_CHARS} characters`,
    });
  }
  const tree = parser.parse(script);
  if (!tree) return err({ type: "shell_unparseable", message: "the shell parser gave no result" });
  try {
    if (tree.rootNode.hasError) {
      return err({
        type: "shell_unparseable",
        message: "the command has shell syntax the parser does not accept",
      });
    }
    const out: ShellAnalysis = { commands: [], redirects: [] };
    walk(tree.rootNode, false, out, true);
    return ok(out);
  } finally {
    tree.delete();
  }
}

function kids(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

/** Named children, each with whether it runs in this shell for sure (not sent to the background). */
function sequence(node: Node, certain: boolean): [Node, boolean][] {
  const all = node.children.filter((c): c is Node => c !== null);
  return all.flatMap((c, i) =>
    c.isNamed ? [[c, certain && all[i + 1]?.type !== "&"] as [Node, boolean]] : [],
  );
}

function walk(node: Node, pipedInput: boolean, out: ShellAnalysis, certain: boolean): void {
  switch (node.type) {
    case "program":
    case "compound_statement":
    case "negated_command":
      for (const [child, sure] of sequence(node, certain)) walk(child, pipedInput, out, sure);
      return;
    case "list": {
      // `a && b`, `a || b`: only the first surely runs.
      let first = true;
      for (const [child, sure] of sequence(node, certain)) {
        walk(child, pipedInput, out, sure && first);
        first = false;
      }
      return;
    }
    case "command":
      command(node, pipedInput, out, certain);
      return;
    case "pipeline": {
      let stage = 0;
      for (const child of kids(node)) walk(child, pipedInput || stage++ > 0, out, false);
      return;
    }
    case "redirected_statement":
      redirected(node, pipedInput, out, certain);
      return;
    case "variable_assignment":
      out.commands.push({
        assignments: [assignment(node, out)],
        words: [],
        redirects: [],
        pipedInput,
        source: node.text,
        certain,
      });
      return;
    case "declaration_command":
    case "unset_command": {
      // `export PATH=…`, `local HOME=…`: the assignments are the shell's own, listed so the
      // checker sees what they change; the words are what rules match.
      const cmd: ShellCommand = {
        assignments: [],
        words: [],
        redirects: [],
        pipedInput,
        source: node.text,
        certain,
      };
      const first = node.children.find((c) => c !== null && !c.isNamed);
      if (first) cmd.words.push(literal(first.text));
      for (const child of kids(node)) {
        if (child.type === "variable_assignment") {
          const a = assignment(child, out);
          cmd.assignments.push(a);
          cmd.words.push({
            value: `${a.name}=${a.value.value}`,
            static: a.value.static,
            raw: child.text,
            tilde: false,
          });
          continue;
        }
        substitutions(child, out);
        cmd.words.push(word(child));
      }
      out.commands.push(cmd);
      return;
    }
    case "file_redirect":
    case "heredoc_redirect":
    case "herestring_redirect": {
      const r = redirect(node, out);
      if (r) out.redirects.push(r);
      return;
    }
    default:
      // Subshells, conditions, loops, function bodies: what runs there may not run, or not here.
      for (const child of kids(node)) walk(child, pipedInput, out, false);
  }
}

function redirected(node: Node, pipedInput: boolean, out: ShellAnalysis, certain: boolean): void {
  const body = node.childForFieldName("body");
  const before = out.commands.length;
  if (body) walk(body, pipedInput, out, certain);
  const owner = body?.type === "command" ? out.commands[before] : undefined;
  for (const r of node.childrenForFieldName("redirect")) {
    if (!r) continue;
    const parsed = redirect(r, out, owner);
    if (!parsed) continue;
    if (owner) owner.redirects.push(parsed);
    else out.redirects.push(parsed);
  }
}

function command(node: Node, pipedInput: boolean, out: ShellAnalysis, certain: boolean): void {
  const cmd: ShellCommand = {
    assignments: [],
    words: [],
    redirects: [],
    pipedInput,
    source: node.text,
    certain,
  };
  for (const child of kids(node)) {
    switch (child.type) {
      case "variable_assignment":
        cmd.assignments.push(assignment(child, out));
        break;
      case "command_name": {
        const inner = kids(child)[0] ?? child;
        substitutions(inner, out);
        cmd.words.unshift(word(inner));
        break;
      }
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect": {
        const r = redirect(child, out, cmd);
        if (r) cmd.redirects.push(r);
        break;
      }
      default:
        substitutions(child, out);
        cmd.words.push(word(child));
    }
  }
  // Substitutions run before the command that uses their output, so they are listed first.
  out.commands.push(cmd);
}

function assignment(node: Node, out: ShellAnalysis): { name: string; value: ShellWord } {
  const name = node.childForFieldName("name")?.text ?? "";
  const valueNode = node.childForFieldName("value");
  if (valueNode) substitutions(valueNode, out);
  return { name, value: valueNode ? word(valueNode) : literal("") };
}

/** Any `$(…)`, backticks or `<(…)` nested in a word run as commands of their own. */
function substitutions(node: Node, out: ShellAnalysis): void {
  if (node.type === "command_substitution" || node.type === "process_substitution") {
    for (const child of kids(node)) walk(child, false, out, false);
    return;
  }
  for (const child of kids(node)) substitutions(child, out);
}

function redirect(node: Node, out: ShellAnalysis, owner?: ShellCommand): ShellRedirect | undefined {
  for (const child of kids(node)) substitutions(child, out);
  if (node.type === "herestring_redirect") return undefined;
  if (node.type === "heredoc_redirect") {
    // `cat <<EOF > out`: the nested file_redirect is a real write.
    for (const nested of node.childrenForFieldName("redirect")) {
      if (!nested) continue;
      const r = redirect(nested, out, owner);
      if (r) (owner ? owner.redirects : out.redirects).push(r);
    }
    return undefined;
  }
  const op = node.children.find((c) => c !== null && !c.isNamed)?.text ?? ">";
  const destinations = node.childrenForFieldName("destination").filter((d): d is Node => d !== null);
  const [dest, ...extra] = destinations;
  // tree-sitter-bash attaches words after `> f` to the redirect; the shell passes them as arguments.
  for (const e of extra) {
    if (owner) owner.words.push(word(e));
    else
      out.commands.push({
        assignments: [],
        words: [word(e)],
        redirects: [],
        pipedInput: false,
        source: e.text,
      });
  }
  if (!dest) return { kind: "dup", op };
  const target = word(dest);
  if ((op === ">&" || op === "<&" || op === ">&-" || op === "<&-") && /^(\d+|-)$/.test(target.value)) {
    return { kind: "dup", op };
  }
  return { kind: op === "<" ? "read" : "write", op, target };
}

function literal(value: string, isStaticValue = true): ShellWord {
  return { value, static: isStaticValue, raw: value, tilde: false };
}

/** A piece of a word: literal text (with its glob pattern), or a variable we may know. */
type Piece =
  | { kind: "text"; value: string; pattern: string; quoted: boolean }
  | { kind: "variable"; name: string; quoted: boolean }
  | { kind: "user"; name: string };

const GLOB_CHARS = /[*?[]/;
const escapeGlob = (text: string) => text.replace(/[*?[\\]/g, "\\$&");
/** `{a,b}` and `{1..3}` expand to several words we do not compute; a bare `{}` stays literal. */
const BRACE_EXPANSION = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** The word's pieces, or undefined when part of it is only known by running something. */
function pieces(node: Node, first: boolean): Piece[] | undefined {
  switch (node.type) {
    case "word":
    case "number": {
      const text = node.text;
      if (BRACE_EXPANSION.test(text.replace(/\\./gs, ""))) return undefined;
      if (first && text.startsWith("~") && !/^~(\/|$)/.test(text)) {
        // `~user` (a passwd lookup); `~+`, `~-` and friends are not followed.
        const m = /^~([a-z_][a-z0-9_.-]*)(\/.*)?$/is.exec(text);
        if (!m) return undefined;
        const rest = m[2] ?? "";
        return [{ kind: "user", name: m[1]! }, ...(rest ? [unquotedText(rest)] : [])];
      }
      return [unquotedText(text)];
    }
    case "raw_string": {
      const value = node.text.slice(1, -1);
      return [{ kind: "text", value, pattern: escapeGlob(value), quoted: true }];
    }
    case "string":
      return stringPieces(node);
    case "simple_expansion":
    case "expansion": {
      const inner = kids(node);
      const name = inner.length === 1 && inner[0]!.type === "variable_name" ? inner[0]!.text : undefined;
      const plain = name !== undefined && (node.text === `$${name}` || node.text === `\${${name}}`);
      return plain ? [{ kind: "variable", name, quoted: false }] : undefined;
    }
    case "concatenation": {
      const out: Piece[] = [];
      for (const [i, child] of kids(node).entries()) {
        const more = pieces(child, first && i === 0);
        if (!more) return undefined;
        out.push(...more);
      }
      return out;
    }
    default:
      return undefined;
  }
}

function unquotedText(text: string): Piece {
  return { kind: "text", value: text.replace(/\\(.)/gs, "$1"), pattern: text, quoted: false };
}

/** `"…"`: literal text between the children, and plain variable expansions. */
function stringPieces(node: Node): Piece[] | undefined {
  const out: Piece[] = [];
  const start = node.startIndex;
  const raw = node.text;
  let at = 1;
  const text = (to: number) => {
    if (to <= at) return;
    const value = raw.slice(at, to).replace(/\\([$`"\\\n])/g, "$1");
    out.push({ kind: "text", value, pattern: escapeGlob(value), quoted: true });
  };
  for (const child of kids(node)) {
    if (child.type === "string_content") continue;
    text(child.startIndex - start);
    const inner = pieces(child, false);
    if (!inner || inner.some((p) => p.kind !== "variable")) return undefined;
    for (const p of inner) out.push({ ...p, quoted: true } as Piece);
    at = child.endIndex - start;
  }
  text(raw.length - 1);
  return out;
}

/** The value the shell would pass as one argv word, or the raw text marked non-static. */
export function word(node: Node): ShellWord {
  const raw = node.text;
  const found = pieces(node, true);
  if (!found) return { value: raw, static: false, raw, tilde: false };
  const first = found[0];
  const tilde = first?.kind === "text" && !first.quoted && /^~(\/|$)/.test(first.value);
  const dynamic = found.some((p) => p.kind !== "text");
  const textPieces = found.filter((p): p is Extract<Piece, { kind: "text" }> => p.kind === "text");
  const globbed = textPieces.some((p) => !p.quoted && GLOB_CHARS.test(p.pattern.replace(/\\./gs, "")));
  const out: ShellWord = dynamic
    ? { value: raw, static: false, raw, tilde: false }
    : { value: textPieces.map((p) => p.value).join(""), static: true, raw, tilde };
  if (globbed && !dynamic) out.glob = textPieces.map((p) => p.pattern).join("");
  if (dynamic) {
    out.parts = found.map((p) =>
      p.kind === "text"
        ? { text: p.value, quoted: p.quoted }
        : p.kind === "variable"
          ? { variable: p.name, quoted: p.quoted }
          : { user: p.name },
    );
    // An unquoted glob next to a variable: the checker cannot expand it before knowing the value.
    if (globbed) out.parts = undefined;
  }
  return out;
}
