// Slash-command completion: which commands match what is typed, and what Tab turns it into. Pure.

export interface CommandChoice {
  name: string;
  description: string;
  argumentHint?: string;
}

/** Commands matching a "/prefix" being typed (no space yet); empty otherwise. */
export function matchingCommands(text: string, commands: readonly CommandChoice[]): CommandChoice[] {
  const typed = /^\/([^\s]*)$/.exec(text);
  if (!typed) return [];
  const prefix = typed[1]!.toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(prefix));
}

/** Tab: the longest common prefix of the matches, or the chosen match once it cannot grow. */
export function completeCommand(
  text: string,
  commands: readonly CommandChoice[],
  selected = 0,
): string | undefined {
  const matches = matchingCommands(text, commands);
  if (matches.length === 0) return undefined;
  const chosen = matches[Math.min(selected, matches.length - 1)]!;
  if (matches.length === 1) return `/${chosen.name} `;
  const common = matches
    .map((m) => m.name)
    .reduce((a, b) => {
      let i = 0;
      while (i < a.length && i < b.length && a[i] === b[i]) i++;
      return a.slice(0, i);
    });
  return `/${common}`.length > text.length ? `/${common}` : `/${chosen.name} `;
}
