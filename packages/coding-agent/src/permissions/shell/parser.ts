// Parses shell scripts with tree-sitter-bash (WASM) into the simple commands and redirects they run.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { err, ok, type Result } from "neverthrow";
import type { Node, Parser } from "web-tree-sitter";
import { importEsm } from "../../esm-import.js";

/** One argv word. `static` = its value is known without running anything (no $x, $(…), globs of braces). */
export interface ShellWord {
  value: string;
  static: boolean;
  /** Unquoted source text; what prefix rules match when the value is not static. */
  raw: string;
  /** Unquoted leading `~` (the shell would expand it to $HOME). */
  tilde: boolean;
}

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
    walk(tree.rootNode, false, out);
    return ok(out);
  } finally {
    tree.delete();
  }
}

function kids(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

function walk(node: Node, pipedInput: boolean, out: ShellAnalysis): void {
  switch (node.type) {
    case "command":
      command(node, pipedInput, out);
      return;
    case "pipeline": {
      let stage = 0;
      for (const child of kids(node)) walk(child, pipedInput || stage++ > 0, out);
      return;
    }
    case "redirected_statement":
      redirected(node, pipedInput, out);
      return;
    case "variable_assignment":
      out.commands.push({
        assignments: [assignment(node, out)],
        words: [],
        redirects: [],
        pipedInput,
        source: node.text,
      });
      return;
    case "declaration_command":
    case "unset_command": {
      const words: ShellWord[] = [];
      const first = node.children.find((c) => c !== null && !c.isNamed);
      if (first) words.push(literal(first.text));
      for (const child of kids(node)) {
        substitutions(child, out);
        words.push(child.type === "variable_assignment" ? literal(child.text, isStatic(child)) : word(child));
      }
      out.commands.push({ assignments: [], words, redirects: [], pipedInput, source: node.text });
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
      for (const child of kids(node)) walk(child, pipedInput, out);
  }
}

function redirected(node: Node, pipedInput: boolean, out: ShellAnalysis): void {
  const body = node.childForFieldName("body");
  const before = out.commands.length;
  if (body) walk(body, pipedInput, out);
  const owner = body?.type === "command" ? out.commands[before] : undefined;
  for (const r of node.childrenForFieldName("redirect")) {
    if (!r) continue;
    const parsed = redirect(r, out, owner);
    if (!parsed) continue;
    if (owner) owner.redirects.push(parsed);
    else out.redirects.push(parsed);
  }
}

function command(node: Node, pipedInput: boolean, out: ShellAnalysis): void {
  const cmd: ShellCommand = { assignments: [], words: [], redirects: [], pipedInput, source: node.text };
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
    for (const child of kids(node)) walk(child, false, out);
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

const DYNAMIC_TYPES = new Set([
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "ansi_c_string",
  "translated_string",
  "brace_expression",
]);

function isStatic(node: Node): boolean {
  if (DYNAMIC_TYPES.has(node.type)) return false;
  return kids(node).every(isStatic);
}

/** The value the shell would pass as one argv word, or the raw text marked non-static. */
export function word(node: Node): ShellWord {
  const raw = node.text;
  switch (node.type) {
    case "word":
    case "number": {
      const text = node.text;
      const tilde = /^~(\/|$)/.test(text);
      // Unquoted braces and `~user` expand to values we do not compute: treat as unknown.
      const dynamic = /[{}]/.test(text) || /^~[^/]/.test(text);
      return { value: text.replace(/\\(.)/gs, "$1"), static: !dynamic, raw, tilde };
    }
    case "raw_string":
      return { value: raw.slice(1, -1), static: true, raw, tilde: false };
    case "string": {
      if (!isStatic(node)) return { value: raw, static: false, raw, tilde: false };
      const inner = raw.slice(1, -1).replace(/\\([$`"\\\n])/g, "$1");
      return { value: inner, static: true, raw, tilde: false };
    }
    case "concatenation": {
      const parts = kids(node).map(word);
      const value = parts.map((p) => p.value).join("");
      return { value, static: parts.every((p) => p.static), raw, tilde: parts[0]?.tilde ?? false };
    }
    default:
      return { value: raw, static: false, raw, tilde: false };
  }
}
