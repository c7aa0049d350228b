// Sampling: a server asks Keel's model for a completion. Off unless the user enabled it for that
// server; then every request is shown for approval (headless: refused at once), capped in
// tokens and in number per session, and run through Keel's own provider layer (its keys, its
// retries, its usage accounting).
import type { CompletionRequest, ExtensionRuntime } from "@keel/extension-sdk";
import {
  type CreateMessageRequest,
  type CreateMessageResult,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { SamplingPolicy } from "../config/servers.js";

type Params = CreateMessageRequest["params"];
type Messages = CompletionRequest["messages"];

/** The spec's code for a sampling request the user (or policy) refused. */
const REJECTED = -1;

function textOf(content: Params["messages"][number]["content"]): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((block) => (block.type === "text" ? block.text : `[${block.type} content]`)).join("\n");
}

/** MCP's conversation as Keel messages: one user turn (earlier turns quoted), images kept. */
export function toMessages(params: Params): Messages {
  const messages = params.messages;
  const last = messages.at(-1);
  const images = messages.flatMap((m) =>
    (Array.isArray(m.content) ? m.content : [m.content]).flatMap((block) =>
      block.type === "image" ? [{ type: "image" as const, data: block.data, mimeType: block.mimeType }] : [],
    ),
  );
  const text =
    messages.length === 1 && last?.role === "user"
      ? textOf(last.content)
      : `${messages.map((m) => `${m.role === "user" ? "User" : "Assistant"}: ${textOf(m.content)}`).join("\n\n")}\n\nReply as the assistant.`;
  return [{ role: "user", content: [{ type: "text", text }, ...images], timestamp: Date.now() }];
}

export interface SamplingGate {
  /** Counts this session's requests per server. */
  used: Map<string, number>;
}

export async function sample(
  server: string,
  policy: SamplingPolicy,
  params: Params,
  runtime: Pick<ExtensionRuntime, "approve" | "models">,
  gate: SamplingGate,
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  const used = gate.used.get(server) ?? 0;
  if (used >= policy.maxRequests)
    throw new McpError(REJECTED, `Sampling budget used up: ${policy.maxRequests} requests this session`);
  const maxTokens = Math.min(params.maxTokens, policy.maxTokens);
  const preview = [
    params.systemPrompt ? `System: ${params.systemPrompt}` : undefined,
    ...params.messages.map((m) => `${m.role}: ${textOf(m.content)}`),
  ]
    .filter(Boolean)
    .join("\n\n");
  const decision = await runtime.approve({
    title: `MCP server "${server}" asks Keel's model for a completion (up to ${maxTokens} tokens)`,
    message: `Request ${used + 1} of at most ${policy.maxRequests} this session.`,
    subject: `mcp__${server}:sampling`,
    preview: { format: "text", text: preview.slice(0, 4000) },
    signal,
  });
  if (decision.status !== "allowed")
    throw new McpError(
      REJECTED,
      decision.status === "unsupported"
        ? "No one can approve sampling here"
        : "User rejected sampling request",
    );
  gate.used.set(server, used + 1);
  const outcome = await runtime.models.complete({
    messages: toMessages(params),
    ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
    ...(policy.model ? { model: policy.model } : {}),
    maxTokens,
    signal,
  });
  if (!outcome.ok) throw new McpError(REJECTED, `The model call failed: ${outcome.error.message}`);
  const message = outcome.message;
  const text = message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
  return {
    role: "assistant",
    content: { type: "text", text },
    model: `${message.provider}/${message.model}`,
    stopReason: message.stopReason === "length" ? "maxTokens" : "endTurn",
  };
}
