// The model provider's own web search — Anthropic's web search (and web fetch, for a short answer)
// and OpenAI's web search — as a WebSearch provider: one request of its own through
// runtime.models.complete, so only the model's key is needed and the conversation's tool list and
// cached prefix stay as they are. Its tokens and search fees count in the session's usage.
import type { CompletionOutcome, ModelsAccess } from "@keel/extension-sdk";
import { err, ok } from "neverthrow";
import type { ProviderFactory, SearchRequest, SearchResponse, SearchResult } from "./provider.js";

// `runtime.models.complete` answers with the SDK's CompletionOutcome union; its reply is read as is.
type Reply = Extract<CompletionOutcome, { ok: true }>["message"];
type Block = Reply["content"][number];

/** How many searches one WebSearch call may run on the provider's side. */
export const MODEL_SEARCHES_PER_CALL = 3;

const SYSTEM =
  "You search the web for a coding agent. Use the web search tool for the query you are given; never " +
  "answer from memory. Reply with what the results say that answers the query, briefly, citing your " +
  "sources. If the results do not answer it, say so.";

/** The query and its constraints, in words the model follows. */
export function searchPrompt(request: SearchRequest): string {
  const lines = [`Search the web for: ${request.query}`];
  if (request.includeDomains?.length) lines.push(`Only results from: ${request.includeDomains.join(", ")}.`);
  if (request.excludeDomains?.length) lines.push(`No results from: ${request.excludeDomains.join(", ")}.`);
  if (request.timeRange) lines.push(`Only results from the last ${request.timeRange}.`);
  if (request.days !== undefined) lines.push(`Only results from the last ${request.days} days.`);
  if (request.topic && request.topic !== "general") lines.push(`Topic: ${request.topic}.`);
  lines.push(`At most ${request.maxResults} sources.`);
  return lines.join("\n");
}

/** Pages the provider's searches returned (deduplicated), with the words the answer cites from each. */
export function resultsOf(reply: Reply, max: number): SearchResult[] {
  const cited = new Map<string, string>();
  for (const block of reply.content)
    if (block.type === "text")
      for (const c of block.citations ?? [])
        if (c.url && c.citedText && !cited.has(c.url)) cited.set(c.url, c.citedText);
  const seen = new Map<string, SearchResult>();
  const add = (url: string, title: string | undefined) => {
    const known = seen.get(url);
    // A search lists some pages by URL alone; a citation of the same page may name it.
    if (known) {
      if (title && known.title === url) known.title = title;
      return;
    }
    seen.set(url, { title: title ?? url, url, snippet: cited.get(url) ?? "" });
  };
  for (const block of reply.content) {
    if (block.type === "serverTool") for (const s of block.sources ?? []) add(s.url, s.title);
    if (block.type === "text") for (const c of block.citations ?? []) if (c.url) add(c.url, c.title);
  }
  // Cited pages first: those are the ones the answer rests on.
  return [...seen.values()].sort((a, b) => Number(b.snippet !== "") - Number(a.snippet !== "")).slice(0, max);
}

function answerOf(reply: Reply): string {
  return reply.content
    .filter((b): b is Extract<Block, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("")
    .trim();
}

/** What went wrong on the provider's side: a search tool's error code, said once. */
function toolErrors(reply: Reply): string[] {
  return reply.content.flatMap((b) => (b.type === "serverTool" && b.error ? [`${b.name}: ${b.error}`] : []));
}

function modelName(access: ModelsAccess): string {
  try {
    const model = access.current();
    return `${model.provider}/${model.id}`;
  } catch {
    return "the session's model";
  }
}

export function modelSearchProvider(): ProviderFactory {
  return (_settings, context) => {
    const access = context.models;
    if (!access) return err({ type: "not_configured", message: "no model access in this host" });
    if (!access.serverTools().includes("web_search"))
      return err({
        type: "not_configured",
        message: `${modelName(access)} has no web search of its provider's own (Anthropic's and OpenAI's models do)`,
      });
    return ok({
      name: "model",
      async search(request, signal) {
        const model = access.current();
        const ref = `${model.provider}/${model.id}`;
        const tools = access.serverTools();
        if (!tools.includes("web_search"))
          return err({
            type: "not_configured",
            message: `the session's model is now ${ref}, which has no web search of its provider's own; switch back, or configure Tavily or SearXNG`,
          });
        const domains = {
          ...(request.includeDomains?.length ? { allowedDomains: request.includeDomains } : {}),
          ...(request.excludeDomains?.length ? { blockedDomains: request.excludeDomains } : {}),
        };
        const outcome = await access.complete({
          systemPrompt: SYSTEM,
          messages: [{ role: "user", content: searchPrompt(request), timestamp: Date.now() }],
          maxTokens: 2048,
          // The reading needs no deep reasoning: the model's lowest setting.
          reasoning: "off",
          serverTools: [
            { name: "web_search", maxUses: MODEL_SEARCHES_PER_CALL, ...domains },
            // A short answer may need a page read in full (Anthropic's web fetch, where there is one).
            ...(request.includeAnswer && tools.includes("web_fetch")
              ? [{ name: "web_fetch" as const, maxUses: 2, ...domains }]
              : []),
          ],
          signal,
        });
        if (!outcome.ok)
          return err({
            type: outcome.error.type === "aborted" ? "timeout" : "provider",
            message: `${ref}'s web search failed: ${outcome.error.message}`,
          });
        const reply = outcome.message;
        const results = resultsOf(reply, request.maxResults);
        const answer = answerOf(reply);
        const errors = toolErrors(reply);
        const searches = reply.usage.serverTools?.webSearch ?? 0;
        const response: SearchResponse = {
          provider: `${model.provider} web search`,
          results,
          ...(answer ? { answer } : {}),
          citations: reply.content.flatMap((b) =>
            b.type === "text"
              ? (b.citations ?? []).flatMap((c) =>
                  c.url
                    ? [
                        {
                          url: c.url,
                          ...(c.title ? { title: c.title } : {}),
                          ...(c.citedText ? { citedText: c.citedText } : {}),
                        },
                      ]
                    : [],
                )
              : [],
          ),
          model: { ref, searches, costUsd: reply.usage.cost.total },
          ...(errors.length > 0 ? { notes: [`The provider's search reported: ${errors.join("; ")}.`] } : {}),
        };
        return ok(response);
      },
    });
  };
}
