// A config file's new text from its old text and the value it should now hold, changed only
// where the value changed: comments, order and formatting elsewhere stay as the user wrote them.
import { applyEdits, type JSONPath, modify, type ParseError, parse } from "jsonc-parser";
import { isPlainObject } from "./merge.js";

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Every [path, new value] where `after` differs from `before` (undefined: removed); objects are walked. */
function changes(before: unknown, after: unknown, path: JSONPath = []): [JSONPath, unknown][] {
  if (same(before, after)) return [];
  if (!isPlainObject(before) || !isPlainObject(after)) return [[path, after]];
  const out: [JSONPath, unknown][] = [];
  for (const key of Object.keys(before)) if (!(key in after)) out.push([[...path, key], undefined]);
  for (const [key, value] of Object.entries(after)) out.push(...changes(before[key], value, [...path, key]));
  return out;
}

const OPTIONS = { allowTrailingComma: true, disallowComments: false };

/** `text` parsed, or undefined when it has a syntax error. */
function parsed(text: string): { value: unknown } | undefined {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, OPTIONS);
  return errors.length === 0 ? { value } : undefined;
}

export function editJsonText(text: string | undefined, before: unknown, after: unknown): string {
  const fresh = `${JSON.stringify(after, null, 2)}\n`;
  if (text === undefined || text.trim() === "" || !isPlainObject(before) || !isPlainObject(after))
    return fresh;
  let out = text;
  for (const [path, value] of changes(before, after)) {
    // Removals unformatted first: formatting re-indents (and drops the comments of) the whole
    // parent. jsonc-parser can leave a stray comma removing before a trailing one: then formatted.
    // Last, the parent rewritten whole (only the comments inside it go).
    const parentPath = path.slice(0, -1);
    const parentValue = parentPath.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], after);
    const attempts: (() => string)[] =
      value === undefined
        ? [
            () => applyEdits(out, modify(out, path, undefined, {})),
            () => applyEdits(out, modify(out, path, undefined, FORMAT)),
            () => applyEdits(out, modify(out, parentPath, parentValue, FORMAT)),
          ]
        : [() => applyEdits(out, modify(out, path, value, FORMAT))];
    const next = attempts.map((edit) => edit()).find((candidate) => parsed(candidate) !== undefined);
    if (next === undefined) return fresh;
    out = next;
  }
  // The edits must give exactly the new value; if they do not, the file is written afresh.
  const check = parsed(out);
  if (!check || !same(check.value, after)) return fresh;
  return out.endsWith("\n") ? out : `${out}\n`;
}
