// The program texts of sed and awk, judged conservatively: a sed script is read-only when every
// command in it is one that only prints or edits the pattern space (no `e`, `w`, `W`, `s///e`,
// `s///w`); an awk program when it has no system(), no pipes, no getline, no `@` directives and
// no output redirection. Anything the parser does not recognise is not read-only.

import { err, ok, type Result } from "neverthrow";

/** Why a program text is not read-only. */
export interface ScriptError {
  type: "not_read_only";
  message: string;
}

/** Read-only: the files the program reads by itself (sed's `r`/`R`); else why not. */
export type ScriptVerdict = Result<string[], ScriptError>;

const no = (message: string): ScriptVerdict => err({ type: "not_read_only", message });

/** Commands that take no argument and touch nothing but the pattern and hold spaces. */
const SED_SIMPLE = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F"]);
/** Commands with an optional number (exit code, line length). */
const SED_NUMBERED = new Set(["l", "L", "q", "Q"]);

/** GNU sed 4.9 script syntax, as far as read-only scripts need it. */
export function checkSedScript(script: string): ScriptVerdict {
  const reads: string[] = [];
  let i = 0;
  const at = () => script[i];
  const skipBlanks = () => {
    while (i < script.length && (script[i] === " " || script[i] === "\t")) i++;
  };
  /** A regex between delimiters, from just after the opening one; false when it is ambiguous. */
  const regex = (delim: string): boolean => {
    while (i < script.length) {
      const c = script[i]!;
      if (c === "\n") return false;
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === delim) {
        i++;
        return true;
      }
      if (c === "[") {
        // Inside a bracket expression the delimiter may or may not end the regex, depending on the
        // sed; a script that depends on it is not judged.
        let j = i + 1;
        if (script[j] === "^") j++;
        if (script[j] === "]") j++;
        while (j < script.length && script[j] !== "]") {
          if (script[j] === delim || script[j] === "\n") return false;
          if (script[j] === "[" && /[:.=]/.test(script[j + 1] ?? "")) {
            const close = script.indexOf(`${script[j + 1]}]`, j + 2);
            if (close === -1) return false;
            j = close + 2;
            continue;
          }
          j++;
        }
        i = j + 1;
        continue;
      }
      i++;
    }
    return false;
  };
  /** One address; "none" when there is none here, "bad" when it cannot be read. */
  const address = (): "ok" | "none" | "bad" => {
    const c = at();
    if (c === undefined) return "none";
    if (/\d/.test(c)) {
      while (/[\d~]/.test(at() ?? "")) i++;
      return "ok";
    }
    if (c === "$") {
      i++;
      return "ok";
    }
    if (c === "/" || c === "\\") {
      const delim = c === "/" ? "/" : script[++i];
      if (delim === undefined || delim === "\n") return "bad";
      i++;
      if (!regex(delim)) return "bad";
      while (at() === "I" || at() === "M") i++;
      return "ok";
    }
    return "none";
  };
  const toEndOfCommand = () => {
    while (i < script.length && script[i] !== "\n" && script[i] !== ";" && script[i] !== "}") i++;
  };

  while (i < script.length) {
    while (i < script.length && /[\s;]/.test(script[i]!)) i++;
    if (i >= script.length) break;
    if (at() === "#") {
      while (i < script.length && script[i] !== "\n") i++;
      continue;
    }
    if (at() === "}") {
      i++;
      continue;
    }
    const first = address();
    if (first === "bad") return no("the sed script has an address the checker cannot read");
    skipBlanks();
    if (first === "ok" && at() === ",") {
      i++;
      skipBlanks();
      if (at() === "+" || at() === "~") {
        i++;
        if (!/\d/.test(at() ?? "")) return no("the sed script has an address the checker cannot read");
        while (/\d/.test(at() ?? "")) i++;
      } else if (address() !== "ok") return no("the sed script has an address the checker cannot read");
    }
    skipBlanks();
    while (at() === "!") {
      i++;
      skipBlanks();
    }
    const cmd = at();
    if (cmd === undefined) return no("the sed script ends with an address and no command");
    i++;
    if (cmd === "{") continue;
    if (SED_SIMPLE.has(cmd)) continue;
    if (SED_NUMBERED.has(cmd)) {
      skipBlanks();
      while (/\d/.test(at() ?? "")) i++;
      continue;
    }
    if (cmd === ":" || cmd === "b" || cmd === "t" || cmd === "T" || cmd === "v") {
      toEndOfCommand();
      continue;
    }
    if (cmd === "a" || cmd === "i" || cmd === "c") {
      // Text to the end of the line; a trailing backslash continues it.
      while (i < script.length) {
        const nl = script.indexOf("\n", i);
        const end = nl === -1 ? script.length : nl;
        const escaped = /(^|[^\\])(\\\\)*\\$/.test(script.slice(i, end));
        i = end + 1;
        if (!escaped) break;
      }
      continue;
    }
    if (cmd === "r" || cmd === "R") {
      const nl = script.indexOf("\n", i);
      const end = nl === -1 ? script.length : nl;
      const name = script.slice(i, end).trim();
      if (name === "") return no("the sed r command has no file");
      reads.push(name);
      i = end;
      continue;
    }
    if (cmd === "e") return no("the sed command e runs a shell command");
    if (cmd === "w" || cmd === "W") return no(`the sed command ${cmd} writes a file`);
    if (cmd === "s" || cmd === "y") {
      const delim = at();
      if (delim === undefined || delim === "\n" || delim === "\\")
        return no(`the sed ${cmd} command has a delimiter the checker cannot read`);
      i++;
      if (!regex(delim)) return no(`the sed ${cmd} command could not be read`);
      // The replacement: no bracket expressions, backslash escapes (also of newlines).
      while (i < script.length && script[i] !== delim) i += script[i] === "\\" ? 2 : 1;
      if (i >= script.length) return no(`the sed ${cmd} command is not closed`);
      i++;
      if (cmd === "y") continue;
      while (i < script.length && !/[\n;}#]/.test(script[i]!)) {
        const flag = script[i]!;
        if (flag === "e") return no("the sed s///e flag runs the pattern space as a command");
        if (flag === "w") return no("the sed s///w flag writes a file");
        if (!/[gpiImM0-9 \t]/.test(flag)) return no(`the sed s flag ${flag} is not one the checker knows`);
        i++;
      }
      continue;
    }
    return no(`the sed command ${cmd} is not one the checker knows`);
  }
  return ok(reads);
}

/**
 * An awk program that cannot run a command, write a file or read one it was not given. Coarse on
 * purpose: a `>` anywhere in a program that prints may be a redirection, so it is not judged.
 */
export function checkAwkProgram(program: string): ScriptVerdict {
  if (/\bsystem\s*\(/.test(program)) return no("the awk program calls system()");
  if (program.replace(/\|\|/g, "").includes("|")) return no("the awk program pipes to or from a command");
  if (/\bgetline\b/.test(program)) return no("the awk program reads with getline");
  if (program.includes("@")) return no("the awk program uses an @ directive or an indirect call");
  if (/\bprintf?\b/.test(program) && program.includes(">"))
    return no("the awk program may redirect its output to a file");
  return ok([]);
}
