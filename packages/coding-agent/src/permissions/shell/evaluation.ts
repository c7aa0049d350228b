// Where bash evaluates text as code although no command is written there: arithmetic (`$((x))`,
// `((x))`, `let`, C-style for, array subscripts, substring offsets, `[[ a -eq b ]]`) and variable
// names (`[[ -v x ]]`, `${!x}`, `${x@P}`). A value such as 'a[$(cmd)]' evaluated there runs cmd,
// so each such place names the variables whose values bash evaluates; the checker knows only
// literal integers to be inert (bash 5.2: every form here ran a command that way).
import type { Node } from "web-tree-sitter";
import type { ShellWord } from "./parser.js";

export interface Evaluation {
  /** Variables whose values bash evaluates as arithmetic or as variable names. */
  names: string[];
  /** Set when the evaluated text is only known at run time (a command's output, `$1`, quotes). */
  opaque?: string;
}

/** Parameters whose values are always plain numbers. */
const NUMERIC_SPECIALS = new Set(["#", "?", "$", "!"]);

export function mergeEvaluations(
  a: Evaluation | undefined,
  b: Evaluation | undefined,
): Evaluation | undefined {
  if (!a) return b;
  if (!b) return a;
  const names = [...new Set([...a.names, ...b.names])];
  const opaque = a.opaque ?? b.opaque;
  return opaque ? { names, opaque } : { names };
}

/**
 * The variables an arithmetic text reads (assignment targets `x=` are written, not read), or
 * why it cannot be told: a command substitution, a complex expansion, a positional parameter.
 */
export function arithmeticText(text: string): Evaluation | undefined {
  if (/\$\(|`|\$\[|['"\\]/.test(text))
    return { names: [], opaque: `the output of a command or quoted text in ${text.trim()}` };
  const names = new Set<string>();
  let opaque: string | undefined;
  const rest = text
    .replace(
      /\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)/g,
      (_, braced: string | undefined, bare: string | undefined) => {
        names.add((braced ?? bare)!);
        return " ";
      },
    )
    .replace(/\$\{#?[^}]*\}|\$(.)/g, (whole: string, special: string | undefined) => {
      if (special !== undefined && NUMERIC_SPECIALS.has(special)) return " 0 ";
      opaque ??= `${whole} in an arithmetic expression`;
      return " ";
    })
    // Literals: base#digits, hex, octal and decimal numbers.
    .replace(/\b\d+#[0-9A-Za-z@_]+|\b0[xX][0-9A-Fa-f]+|\b\d+\b/g, " 0 ")
    // A plain assignment target is written, not read (`i=0`; `i+=1` and `i==1` read i).
    .replace(/\b[A-Za-z_]\w*\s*=(?!=)/g, " = ");
  for (const m of rest.matchAll(/[A-Za-z_]\w*/g)) names.add(m[0]);
  if (names.size === 0 && !opaque) return undefined;
  return opaque ? { names: [...names], opaque } : { names: [...names] };
}

/** `NAME` or `NAME[subscript]` given to `-v`, `printf -v`, `read`, `declare`: what bash evaluates. */
export function nameText(text: string): Evaluation | undefined {
  if (/^[A-Za-z_]\w*$/.test(text)) return undefined;
  const m = /^[A-Za-z_]\w*\[(.*)\]$/s.exec(text);
  if (!m) return { names: [], opaque: `the variable name ${text}` };
  return m[1] === "@" || m[1] === "*" ? undefined : arithmeticText(m[1]!);
}

const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** An operand of `[[ a -eq b ]]` (evaluated as arithmetic) or of `[[ -v name ]]`. */
function operand(node: Node, kind: "arithmetic" | "name"): Evaluation | undefined {
  if (node.type === "number") return undefined;
  if (node.type === "simple_expansion") {
    const name = node.text.slice(1);
    if (NUMERIC_SPECIALS.has(name)) return undefined;
    return /^[A-Za-z_]\w*$/.test(name)
      ? { names: [name] }
      : { names: [], opaque: `the test operand ${node.text}` };
  }
  if (!/[$`"'\\]/.test(node.text)) return kind === "name" ? nameText(node.text) : arithmeticText(node.text);
  return { names: [], opaque: `the test operand ${node.text}` };
}

/** What a `[[ … ]]` evaluates: `-v` operands and the operands of arithmetic comparisons. */
function testEvaluation(node: Node): Evaluation | undefined {
  let out: Evaluation | undefined;
  const visit = (n: Node) => {
    const op = n.childForFieldName("operator")?.text;
    if (n.type === "unary_expression" && op === "-v") {
      const target = n.namedChildren.find((c) => c !== null && c.type !== "test_operator");
      if (target) out = mergeEvaluations(out, operand(target, "name"));
    } else if (n.type === "binary_expression" && op !== undefined && ARITHMETIC_TESTS.has(op)) {
      for (const side of ["left", "right"]) {
        const c = n.childForFieldName(side);
        if (c) out = mergeEvaluations(out, operand(c, "arithmetic"));
      }
    }
    for (const c of n.namedChildren) if (c && c.type !== "command_substitution") visit(c);
  };
  visit(node);
  return out;
}

/** `${…}` forms that evaluate: indirection, subscripts, substring offsets, prompt expansion. */
function expansionEvaluation(text: string): Evaluation | undefined {
  const body = text.slice(2, -1);
  if (body.startsWith("!")) {
    // `${!prefix*}`, `${!name[@]}` list names or keys; any other `${!x}` evaluates x's value as a name.
    if (/^![A-Za-z_]\w*([*@]|\[[@*]\])$/.test(body)) return undefined;
    const m = /^!([A-Za-z_]\w*)/.exec(body);
    return m ? { names: [m[1]!] } : { names: [], opaque: `the variable ${text} names` };
  }
  const name = /^#?([A-Za-z_]\w*)/.exec(body);
  if (!name) return undefined;
  let out: Evaluation | undefined;
  let rest = body.slice(name[0].length);
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close === -1) return { names: [], opaque: `the subscript of ${text}` };
    const index = rest.slice(1, close);
    if (index !== "@" && index !== "*") out = mergeEvaluations(out, arithmeticText(index));
    rest = rest.slice(close + 1);
  }
  if (/^:[^-=?+]/.test(rest)) out = mergeEvaluations(out, arithmeticText(rest.slice(1)));
  if (/@P$/.test(rest)) out = mergeEvaluations(out, { names: [name[1]!] });
  return out;
}

/** `arr=([k]=v …)`: the keys are arithmetic for indexed arrays. */
function arrayEvaluation(node: Node): Evaluation | undefined {
  let out: Evaluation | undefined;
  for (const element of node.namedChildren) {
    const m = element ? /^\[([^\]]*)\]=/.exec(element.text) : null;
    if (m) out = mergeEvaluations(out, arithmeticText(m[1]!));
  }
  return out;
}

/** Arithmetic text inside `$((…))`, `$[…]`, `((…))`. */
function arithmeticNode(text: string): Evaluation | undefined {
  const inner = text.replace(/^\$?\(\(|\)\)$/g, "").replace(/^\$\[|\]$/g, "");
  return arithmeticText(inner);
}

/**
 * Everything a node evaluates, not looking into command substitutions (their commands are judged
 * on their own).
 */
export function evaluationsIn(node: Node): Evaluation | undefined {
  let out: Evaluation | undefined;
  const visit = (n: Node) => {
    switch (n.type) {
      case "command_substitution":
      case "process_substitution":
        return;
      case "arithmetic_expansion":
        out = mergeEvaluations(out, arithmeticNode(n.text));
        return;
      case "expansion":
        out = mergeEvaluations(out, expansionEvaluation(n.text));
        break;
      case "subscript": {
        const index = n.childForFieldName("index");
        if (index) out = mergeEvaluations(out, arithmeticText(index.text));
        break;
      }
      case "array":
        out = mergeEvaluations(out, arrayEvaluation(n));
        break;
      case "test_command":
        out = mergeEvaluations(out, testEvaluation(n));
        break;
    }
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(node);
  return out;
}

/** `((…))` as a statement: a compound_statement whose first token is `((`. */
export function isArithmeticCommand(node: Node): boolean {
  return node.type === "compound_statement" && node.children[0]?.type === "((";
}

export function statementEvaluation(node: Node): Evaluation | undefined {
  if (isArithmeticCommand(node)) return mergeEvaluations(arithmeticNode(node.text), evaluationsIn(node));
  if (node.type === "test_command") return evaluationsIn(node);
  return undefined;
}

/**
 * The C-style for header: what its initializer evaluates (once, first), what its condition and
 * update evaluate (around every pass), and the variables the initializer surely sets to integers
 * (`i=0, j=1` with no condition in it), which the condition and update then read.
 */
export function forHeader(node: Node): { init?: Evaluation; loop?: Evaluation; integers: string[] } {
  const text = (f: string) => node.childForFieldName(f)?.text;
  const init = text("initializer") ?? "";
  let loop: Evaluation | undefined;
  for (const f of ["condition", "update"]) {
    const t = text(f);
    if (t !== undefined) loop = mergeEvaluations(loop, arithmeticText(t));
  }
  const initEvaluation = init === "" ? undefined : arithmeticText(init);
  const integers =
    /[&|?]/.test(init) || init.trim() === ""
      ? []
      : init.split(",").flatMap((a) => {
          const m = /^\s*([A-Za-z_]\w*)\s*=(?!=)/.exec(a);
          return m ? [m[1]!] : [];
        });
  return { ...(initEvaluation ? { init: initEvaluation } : {}), ...(loop ? { loop } : {}), integers };
}

/** A word bash evaluates: its static text, or the variables it is made of. */
function wordEvaluation(w: ShellWord, kind: "arithmetic" | "name"): Evaluation | undefined {
  if (w.static) return kind === "name" ? nameText(w.value) : arithmeticText(w.value);
  const parts = w.parts ?? [];
  const variables = parts.flatMap((p) => ("variable" in p ? [p.variable] : []));
  if (parts.length === 0 || parts.some((p) => "user" in p))
    return { names: [], opaque: `${w.raw}, only known when the shell runs` };
  if (kind === "name")
    return parts.length === 1 && variables.length === 1
      ? { names: variables }
      : { names: [], opaque: `the variable name ${w.raw}, only known when the shell runs` };
  const text = parts.map((p) => ("text" in p ? p.text : " 0 ")).join("");
  return mergeEvaluations({ names: variables }, arithmeticText(text));
}

const DECLARES = new Set(["declare", "typeset", "local", "readonly", "export"]);
const READ_VALUE_OPTIONS = new Set(["-d", "-i", "-n", "-N", "-p", "-t", "-u"]);

/**
 * What a builtin evaluates through its arguments (bash 5.2): `let`'s expressions, the names
 * `test -v`, `printf -v`, `read`, `mapfile`, `unset` and `declare` take (a subscript in one is
 * arithmetic), and `declare -i`/`-n`, after which assignments and expansions evaluate values.
 */
export function argvEvaluation(
  words: readonly ShellWord[],
  name: string | undefined,
): Evaluation | undefined {
  const args = words.slice(1);
  let out: Evaluation | undefined;
  const add = (e: Evaluation | undefined) => {
    out = mergeEvaluations(out, e);
  };
  switch (name) {
    case "let":
      for (const a of args) add(wordEvaluation(a, "arithmetic"));
      return out;
    case "test":
    case "[":
      args.forEach((a, i) => {
        if (a.static && a.value === "-v" && args[i + 1]) add(wordEvaluation(args[i + 1]!, "name"));
      });
      return out;
    case "printf": {
      const v = args.findIndex((a) => a.value === "-v" || (a.value.startsWith("-v") && a.value.length > 2));
      if (v === -1) return undefined;
      const named = args[v]!.value === "-v" ? args[v + 1] : { ...args[v]!, value: args[v]!.value.slice(2) };
      return named ? wordEvaluation(named, "name") : undefined;
    }
    case "read":
    case "mapfile":
    case "readarray":
    case "unset":
    case "getopts":
      for (let i = name === "getopts" ? 1 : 0; i < args.length; i++) {
        const a = args[i]!;
        if (a.static && a.value.startsWith("-")) {
          if (READ_VALUE_OPTIONS.has(a.value) && name !== "unset") i++;
          continue;
        }
        add(wordEvaluation(a, "name"));
      }
      return out;
    default:
      if (name === undefined || !DECLARES.has(name)) return undefined;
      for (const a of args) {
        if (a.static && /^[-+][a-zA-Z]*[in]/.test(a.value) && name !== "export" && name !== "readonly")
          return {
            names: [],
            opaque: `what is later assigned to a variable declared with ${name} ${a.value}`,
          };
        if (a.static && a.value.startsWith("-")) continue;
        const text = a.static ? a.value : a.raw;
        const eq = text.indexOf("=");
        const target = eq === -1 ? text : text.slice(0, eq);
        add(
          a.static || (eq !== -1 && !/[$`"'\\]/.test(target))
            ? nameText(target)
            : { names: [], opaque: `the variable name in ${a.raw}, only known when the shell runs` },
        );
      }
      return out;
  }
}
