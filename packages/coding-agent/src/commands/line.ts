// How a line names a slash command, read the same way by the registry and every front end
// (`keel -p "/trust"`, the TUI's input, ACP).

/** "/name rest of line" → name and args; undefined for a prompt that is not a command. */
export function parseCommandLine(text: string): { name: string; args: string } | undefined {
  const m = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1]!, args: (m[2] ?? "").trim() } : undefined;
}
