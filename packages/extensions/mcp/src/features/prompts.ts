// A server's prompts as slash commands, `/mcp__<server>__<prompt> args`: arguments are given in
// the prompt's order (or as name=value), and the prompt's messages become the next prompt to
// the agent. The commands exist from the start (the server's last known prompts) and follow
// prompts/list_changed; running one connects its server first if it is not yet.
import type { CommandResult, ExtensionCommand } from "@keel/extension-sdk";
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import { err, ok, type Result } from "neverthrow";
import type { McpFailure } from "../connection/index.js";

/** Splits on spaces, keeping "quoted parts" together (also inside a word: name="a b"). */
export function splitArgs(text: string): string[] {
  return [...text.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)].map((m) =>
    m[0].replace(/"([^"]*)"|'([^']*)'/g, "$1$2"),
  );
}

/** Required arguments the command line left out. */
export interface MissingArguments {
  type: "missing_arguments";
  message: string;
  missing: string[];
}

export function promptArguments(
  prompt: Prompt,
  text: string,
): Result<Record<string, string>, MissingArguments> {
  const declared = prompt.arguments ?? [];
  const values: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of splitArgs(text)) {
    const eq = word.indexOf("=");
    const key = eq > 0 ? word.slice(0, eq) : undefined;
    if (key && declared.some((a) => a.name === key)) values[key] = word.slice(eq + 1);
    else positional.push(word);
  }
  for (const arg of declared) {
    if (values[arg.name] !== undefined) continue;
    const next = positional.shift();
    if (next !== undefined) values[arg.name] = next;
  }
  if (positional.length > 0) {
    // The last argument takes the rest, so free text needs no quotes.
    const last = declared.at(-1);
    if (last) values[last.name] = [values[last.name], ...positional].filter(Boolean).join(" ");
  }
  const missing = declared.filter((a) => a.required && !values[a.name]).map((a) => a.name);
  if (missing.length > 0)
    return err({ type: "missing_arguments", message: `missing ${missing.join(", ")}`, missing });
  return ok(values);
}

function promptText(result: GetPromptResult): string {
  return result.messages
    .map((message) => {
      const content = message.content;
      const text =
        content.type === "text"
          ? content.text
          : content.type === "resource" && "text" in content.resource
            ? `[resource ${content.resource.uri}]\n${content.resource.text}`
            : content.type === "resource_link"
              ? `[resource link] ${content.name}: ${content.uri}`
              : `[${content.type} content]`;
      return message.role === "assistant" ? `(assistant) ${text}` : text;
    })
    .join("\n\n");
}

/** Fetches one prompt of the server with its arguments (connecting the server first if need be). */
export type PromptGetter = (
  prompt: string,
  values: Record<string, string>,
  signal: AbortSignal,
) => Promise<Result<GetPromptResult, McpFailure>>;

export function promptCommand(
  name: string,
  server: string,
  prompt: Prompt,
  get: PromptGetter,
): ExtensionCommand<never> {
  const args = prompt.arguments ?? [];
  return {
    name,
    description: `${prompt.description ?? prompt.title ?? prompt.name} (MCP prompt of ${server})`,
    source: { kind: "mcp", owner: server },
    ...(args.length > 0
      ? { argumentHint: args.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ") }
      : {}),
    run: async (text, _runtime, { signal }): Promise<CommandResult> => {
      const parsed = promptArguments(prompt, text);
      if (parsed.isErr()) return { error: `/${name}: ${parsed.error.message}` };
      const result = await get(prompt.name, parsed.value, signal);
      if (result.isErr()) return { error: `/${name}: ${result.error.message}` };
      return { prompt: promptText(result.value) };
    },
  };
}
