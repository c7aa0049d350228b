// Completions of extensions' `@<prefix>:<ref>` mentions (an MCP server's resources) for the @ menu.
// The agent answers asynchronously: what is known for the text typed now is shown at once, a
// question for it is asked once (the one before it given up), and `ready` redraws when it lands.
import type { CodingAgent } from "@keel/coding-agent";

export interface MentionChoice {
  /** What follows the `@` once chosen: `docs:file:///a.md`, or `docs:` for a prefix. */
  name: string;
  description: string;
}

type Complete = CodingAgent["completeMention"];

export class ExtensionMentions {
  private known: { query: string; choices: MentionChoice[] } | undefined;
  private asking: { query: string; controller: AbortController } | undefined;

  constructor(private readonly complete: () => Complete | undefined) {}

  current(query: string, ready: () => void): MentionChoice[] {
    if (this.known?.query === query) return this.known.choices;
    const complete = this.complete();
    if (!complete || this.asking?.query === query) return [];
    this.asking?.controller.abort();
    const controller = new AbortController();
    this.asking = { query, controller };
    complete(query, controller.signal).then(
      (items) => {
        if (this.asking?.query !== query) return;
        this.asking = undefined;
        this.known = {
          query,
          choices: items.map((item) => ({
            name: `${item.prefix}:${item.ref}`,
            description:
              item.ref === ""
                ? `resources of ${item.source}`
                : [item.label, item.description].filter((t) => t && t !== item.ref).join(" — "),
          })),
        };
        if (this.known.choices.length > 0) ready();
      },
      () => {
        if (this.asking?.query === query) this.asking = undefined;
      },
    );
    return [];
  }

  /** A new agent (a switch, /new): what the old one answered no longer holds. */
  reset(): void {
    this.asking?.controller.abort();
    this.asking = undefined;
    this.known = undefined;
  }
}
