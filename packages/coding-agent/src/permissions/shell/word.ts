// One argv word as the shell would pass it: its value when known without running anything, the
// pieces it is made of otherwise (tree-sitter-bash nodes to ShellWord).
import type { Node } from "web-tree-sitter";

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

function kids(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

export function literal(value: string, isStaticValue = true): ShellWord {
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
