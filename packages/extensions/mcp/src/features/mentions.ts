// `@server:uri` in the user's prompt: the resource attached to the prompt, as Claude Code users
// write it. Every enabled server's name is a prefix from the start (a prompt given on the command
// line comes before any server is connected: resolving one connects it first). Completion lists a
// connected server's resources (first page, kept briefly, so typing does not ask the server at
// every key); resolution reads the resource.
import type { MentionCompletion, MentionResolution, MentionSource, ToolResult } from "@keel/extension-sdk";
import type { McpManager, ServerHandle } from "../manager.js";

type Block = ToolResult["content"][number];

/** A resource list is asked again after this long (a person typing reuses it). */
const LIST_TTL_MS = 5_000;

interface Listed {
  at: number;
  resources: { uri: string; name: string; mimeType?: string; description?: string }[];
}

export interface MentionHost {
  /** The `<server>` parts of the enabled servers. */
  parts(): string[];
  /** The manager if loaded. */
  loaded(): McpManager | undefined;
  /** The manager, loading it now. */
  load(): Promise<McpManager | undefined>;
}

export function mentionSource(host: MentionHost): MentionSource {
  const manager = () => host.loaded();
  const lists = new Map<string, Listed>();
  const serverOf = (prefix: string): ServerHandle | undefined => {
    const server = manager()?.get(prefix);
    return server &&
      server.connection.status().state === "connected" &&
      server.connection.capabilities()?.resources
      ? server
      : undefined;
  };
  return {
    id: "resources",
    prefixes: () => host.parts(),
    complete: async ({ prefix, ref }, { signal }): Promise<MentionCompletion[]> => {
      const server = serverOf(prefix);
      if (!server) return [];
      let listed = lists.get(server.part);
      if (!listed || Date.now() - listed.at > LIST_TTL_MS) {
        const answer = await server.connection.listResources(undefined, signal);
        if (answer.isErr()) return [];
        listed = { at: Date.now(), resources: answer.value.resources };
        lists.set(server.part, listed);
      }
      const wanted = ref.toLowerCase();
      return listed.resources
        .filter((r) => r.uri.toLowerCase().includes(wanted) || r.name.toLowerCase().includes(wanted))
        .sort((a, b) => Number(!a.uri.startsWith(ref)) - Number(!b.uri.startsWith(ref)))
        .map((r) => ({
          ref: r.uri,
          label: r.name,
          ...(r.description || r.mimeType ? { description: r.description ?? r.mimeType } : {}),
        }));
    },
    // Every answer here is the SDK's MentionResolution (`{ ok, content } | { ok: false, message }`),
    // the mention-source contract the host reads; it stays that shape.
    resolve: async ({ prefix, ref }, { signal }): Promise<MentionResolution> => {
      if (!ref) return { ok: false, message: `name a resource: @${prefix}:<uri>` };
      const server = (await host.load())?.get(prefix);
      if (!server) return { ok: false, message: `no MCP server "${prefix}"` };
      const ready = await server.connection.ready();
      if (ready.isErr())
        return { ok: false, message: `MCP server "${prefix}" is not connected: ${ready.error.message}` };
      if (!server.connection.capabilities()?.resources)
        return { ok: false, message: `MCP server "${prefix}" offers no resources` };
      const read = await server.connection.readResource(ref, signal);
      if (read.isErr()) return { ok: false, message: read.error.message };
      const content: Block[] = [];
      for (const item of read.value.contents) {
        if ("text" in item && typeof item.text === "string") content.push({ type: "text", text: item.text });
        else if ("blob" in item && typeof item.blob === "string") {
          const mimeType = item.mimeType ?? "application/octet-stream";
          if (/^image\/(png|jpeg|gif|webp)$/.test(mimeType))
            content.push({ type: "image", data: item.blob, mimeType });
          else
            content.push({
              type: "text",
              text: `[binary resource ${item.uri} (${mimeType}), ${Buffer.byteLength(item.blob, "base64")} bytes, not shown]`,
            });
        }
      }
      if (content.length === 0) return { ok: false, message: `${ref} has no contents` };
      const title = lists.get(server.part)?.resources.find((r) => r.uri === ref)?.name;
      return { ok: true, content, ...(title ? { title } : {}) };
    },
  };
}
