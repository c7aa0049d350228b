// How a command file's body becomes a prompt, as Claude Code documents it: `$ARGUMENTS` (all of
// them), `$1`…`$9` (shell-like words), and `` !`cmd` `` placeholders whose output replaces them.
// Pure text functions; running the commands is the caller's (through the sandbox and the gate).

/** The arguments as a shell would split them: whitespace between words, '…' and "…" quote, \ escapes. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < args.length; i++) {
    const ch = args[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && (args[i + 1] === '"' || args[i + 1] === "\\"))
        word += args[++i];
      else word += ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\" && i + 1 < args.length) word += args[++i];
    else word += ch;
  }
  // An unclosed quote runs to the end of the line, as most users mean it.
  if (inWord) words.push(word);
  return words;
}

const PLACEHOLDER = /\$ARGUMENTS\b|\$([1-9])(?!\d)/g;

/**
 * The body with its arguments in place, in one pass (what the user typed is never read as a
 * placeholder). A body that names none of them gets the arguments appended as `ARGUMENTS: …`
 * (Claude Code's rule), so what the user typed is never lost.
 */
export function substituteArguments(body: string, args: string): string {
  const words = splitArguments(args);
  let uses = false;
  const text = body.replace(PLACEHOLDER, (_, n: string | undefined) => {
    uses = true;
    return n === undefined ? args : (words[Number(n) - 1] ?? "");
  });
  return !uses && args !== "" ? `${text}\n\nARGUMENTS: ${args}` : text;
}

/** `` !`cmd` `` at the start of a line or after whitespace (so "wow!`x`" in prose stays text). */
const SHELL = /(^|\s)!`([^`\n]+)`/g;

/** The shell commands a text runs before it is sent, in order. */
export function shellCommands(text: string): string[] {
  return [...text.matchAll(SHELL)].map((m) => m[2]!.trim());
}

/** The text with each `` !`cmd` `` replaced by its output (`outputs` in the order shellCommands gave). */
export function fillShellOutputs(text: string, outputs: readonly string[]): string {
  let i = 0;
  return text.replace(SHELL, (_, lead: string) => `${lead}${(outputs[i++] ?? "").replace(/\s+$/, "")}`);
}
