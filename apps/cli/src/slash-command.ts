// How a line names a slash command: shared by print mode (`keel -p "/trust"`) and the TUI, so both
// read "/name args" the same way.

/** "/name rest of line" → name and args; undefined for a prompt that is not a command. */
export function parseSlash(text: string): { name: string; args: string } | undefined {
  const m = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1]!, args: (m[2] ?? "").trim() } : undefined;
}
