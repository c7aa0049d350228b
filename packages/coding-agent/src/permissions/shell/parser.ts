// Parses shell scripts with tree-sitter-bash (WASM) into the simple commands and redirects they run.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { err, ok, type Result } from "neverthrow";
import type { Node, Parser } from "web-tree-sitter";
import { importEsm } from "../../esm-import.js";
import {
  type Evaluation,
  evaluationsIn,
  forHeader,
  mergeEvaluations,
  statementEvaluation,
} from "./evaluation.js";
import { keepWasmOnBaseline } from "./wasm-tiering.js";
import { literal, type ShellWord, word } from "./word.js";

export type { ShellWord, WordPart } from "./word.js";

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
  /** Text bash evaluates as arithmetic or as a variable name here (evaluation.ts). */
  evaluates?: Evaluation;
  /** What the script itself feeds the command's standard input: a here-document or here-string, or a file. */
  input?: { text: ShellWord } | { file: ShellWord };
  /** Variables this command surely leaves holding integers (a loop's variable over integers). */
  integers?: string[];
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

/** Nodes that are words the shell expands (as opposed to statements). */
const WORDISH = new Set([
  "word",
  "string",
  "raw_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "arithmetic_expansion",
  "extglob_pattern",
]);

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
    case "compound_statement":
    case "test_command": {
      // `((x))` and `[[ -v x ]]` evaluate text as code although they run no command.
      const evaluates = statementEvaluation(node);
      if (evaluates) out.commands.push(shellCommand(node.text, pipedInput, certain, { evaluates }));
      for (const [child, sure] of sequence(node, certain)) walk(child, pipedInput, out, sure);
      return;
    }
    case "program":
    case "negated_command":
      for (const [child, sure] of sequence(node, certain)) walk(child, pipedInput, out, sure);
      return;
    case "for_statement":
      forIn(node, pipedInput, out, certain);
      return;
    case "c_style_for_statement":
      forArithmetic(node, pipedInput, out, certain);
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
    case "variable_assignment": {
      const evaluates = evaluationsIn(node);
      out.commands.push(
        shellCommand(node.text, pipedInput, certain, {
          assignments: [assignment(node, out)],
          ...(evaluates ? { evaluates } : {}),
        }),
      );
      return;
    }
    case "declaration_command":
    case "unset_command": {
      // `export PATH=…`, `local HOME=…`: the assignments are the shell's own, listed so the
      // checker sees what they change; the words are what rules match.
      const cmd = shellCommand(node.text, pipedInput, certain);
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
      const evaluates = evaluationsIn(node);
      if (evaluates) cmd.evaluates = evaluates;
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
    default: {
      // Subshells, conditions, loops, function bodies: what runs there may not run, or not here.
      // Words outside commands (`case $((x)) in`, its patterns) are expanded, and may evaluate.
      const evaluates = kids(node)
        .filter((c) => WORDISH.has(c.type))
        .reduce<Evaluation | undefined>((e, c) => mergeEvaluations(e, evaluationsIn(c)), undefined);
      if (evaluates) out.commands.push(shellCommand(node.text, pipedInput, false, { evaluates }));
      for (const child of kids(node)) walk(child, pipedInput, out, false);
    }
  }
}

/**
 * A command, empty but for `extra`: one the walk goes on to fill with its words, or one of the
 * checker's own making (an assignment or an evaluation the syntax implies).
 */
function shellCommand(
  source: string,
  pipedInput: boolean,
  certain: boolean,
  extra: Partial<ShellCommand> = {},
): ShellCommand {
  return { assignments: [], words: [], redirects: [], pipedInput, source, certain, ...extra };
}

/**
 * `for NAME in WORDS; do …; done` (and `select`): NAME is assigned before the body runs, as a
 * bare `NAME=value` would be (a loop over `.` can set PATH). Over literal integers only, NAME
 * holds an integer in the body.
 */
function forIn(node: Node, pipedInput: boolean, out: ShellAnalysis, certain: boolean): void {
  const name = node.childForFieldName("variable")?.text ?? "";
  const values = node.childrenForFieldName("value").filter((v): v is Node => v !== null);
  for (const v of values) substitutions(v, out);
  const words = values.map(word);
  const integers = words.length > 0 && words.every((w) => w.static && /^[+-]?\d+$/.test(w.value));
  const value: ShellWord =
    words.length === 1
      ? words[0]!
      : { value: "", static: false, raw: values.map((v) => v.text).join(" "), tilde: false };
  const evaluates = values.reduce<Evaluation | undefined>(
    (e, v) => mergeEvaluations(e, evaluationsIn(v)),
    undefined,
  );
  out.commands.push(
    shellCommand(`for ${name} in …`, pipedInput, certain, {
      assignments: [{ name, value }],
      ...(integers ? { integers: [name] } : {}),
      ...(evaluates ? { evaluates } : {}),
    }),
  );
  const body = node.childForFieldName("body");
  if (body) walk(body, pipedInput, out, false);
}

/** `for ((init; cond; update))`: init is evaluated once, then cond and update around each pass. */
function forArithmetic(node: Node, pipedInput: boolean, out: ShellAnalysis, certain: boolean): void {
  const header = forHeader(node);
  for (const c of kids(node))
    if (c.type !== "do_group" && c.type !== "compound_statement") substitutions(c, out);
  const loop = () => {
    if (header.loop)
      out.commands.push(shellCommand(node.text, pipedInput, false, { evaluates: header.loop }));
  };
  if (header.init)
    out.commands.push(shellCommand(node.text, pipedInput, certain, { evaluates: header.init }));
  if (header.integers.length > 0)
    out.commands.push(
      shellCommand("for ((…))", pipedInput, certain, {
        assignments: header.integers.map((name) => ({ name, value: literal("0") })),
        integers: header.integers,
      }),
    );
  loop();
  const body = node.childForFieldName("body");
  if (body) walk(body, pipedInput, out, false);
  // The update runs after the body, which may have changed what it reads.
  loop();
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
  const cmd = shellCommand(node.text, pipedInput, certain);
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
    const evaluates = evaluationsIn(child);
    if (evaluates) cmd.evaluates = mergeEvaluations(cmd.evaluates, evaluates);
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
  if (node.type === "herestring_redirect") {
    const text = kids(node)[0];
    if (owner && text) owner.input = { text: word(text) };
    return undefined;
  }
  if (node.type === "heredoc_redirect") {
    if (owner) owner.input = { text: heredocText(node) };
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
  if (op === "<" && owner) owner.input = { file: target };
  if ((op === ">&" || op === "<&" || op === ">&-" || op === "<&-") && /^(\d+|-)$/.test(target.value)) {
    return { kind: "dup", op };
  }
  return { kind: op === "<" ? "read" : "write", op, target };
}

/**
 * A here-document's text as the command reads it: literal when the delimiter is quoted, or when
 * the body has no expansion and no backslash; otherwise only known when the shell runs.
 */
function heredocText(node: Node): ShellWord {
  const start = kids(node).find((c) => c.type === "heredoc_start")?.text ?? "";
  const body = kids(node).find((c) => c.type === "heredoc_body");
  const text = body?.text ?? "";
  const quoted = /['"\\]/.test(start);
  const expands = body ? kids(body).some((c) => c.type !== "heredoc_content") : false;
  const literalBody = quoted || (!expands && !/[\\$`]/.test(text));
  return literalBody ? literal(text) : { value: text, static: false, raw: text, tilde: false };
}
