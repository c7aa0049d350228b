// Tavily through its official SDK (@tavily/core, loaded only when a search runs). Never built
// without a key: keyless, the SDK would send every query to Tavily's public endpoint. In a test
// run (VITEST set) it is also never built without an explicit endpoint, so no test can reach
// the real API.
import { createRequire } from "node:module";
import { err, ok, type Result } from "neverthrow";
import type {
  ProviderFactory,
  SearchError,
  SearchProvider,
  SearchRequest,
  SearchResponse,
  TimeRange,
} from "./provider.js";

/** The part of @tavily/core this provider uses (kept local: the package is an optional peer). */
export interface TavilyModule {
  tavily(options: { apiKey: string; apiBaseURL?: string; clientSource?: string }): {
    search(query: string, options: Record<string, unknown>): Promise<TavilyAnswer>;
  };
  TavilyKeylessLimitError: new (...args: never[]) => Error & { capType?: string; retryAfter?: number | null };
}

interface TavilyAnswer {
  answer?: string;
  results: { title: string; url: string; content: string; score?: number; publishedDate?: string }[];
  usage?: { credits?: number };
}

export const DEFAULT_TAVILY_ENDPOINT = "https://api.tavily.com";

// Loaded with require (its CommonJS build), not import(): a bundled host (the keel CLI) runs this
// code from a V8 code cache, where import() loses its binding to Node's loader.
const requireHere = createRequire(import.meta.url);

const defaultLoader = async (): Promise<TavilyModule> => requireHere("@tavily/core") as TavilyModule;

function installed(): boolean {
  try {
    requireHere.resolve("@tavily/core");
    return true;
  } catch {
    return false;
  }
}

/** Days to the nearest Tavily time range, for topics where Tavily takes no `days`. */
export function rangeForDays(days: number): TimeRange {
  return days <= 1 ? "day" : days <= 7 ? "week" : days <= 31 ? "month" : "year";
}

export function tavilyRequestOptions(
  request: SearchRequest,
  timeoutSeconds: number,
): Record<string, unknown> {
  const options: Record<string, unknown> = {
    maxResults: request.maxResults,
    includeUsage: true,
    timeout: timeoutSeconds,
  };
  if (request.topic) options.topic = request.topic;
  if (request.includeDomains?.length) options.includeDomains = request.includeDomains;
  if (request.excludeDomains?.length) options.excludeDomains = request.excludeDomains;
  if (request.includeAnswer) options.includeAnswer = true;
  if (request.timeRange) options.timeRange = request.timeRange;
  if (request.days !== undefined) {
    // Tavily reads `days` for news only; elsewhere the closest time range says the same.
    if (request.topic === "news") options.days = request.days;
    else options.timeRange = rangeForDays(request.days);
  }
  return options;
}

export interface TavilyOptions {
  /** How @tavily/core is loaded; tests wrap it to count clients. */
  load?: () => Promise<TavilyModule>;
  /** Whether @tavily/core can be found (default: resolved from this package). */
  isInstalled?: () => boolean;
}

export function tavilyProvider(options: TavilyOptions = {}): ProviderFactory {
  return (settings) => {
    const keySource = settings.keySource ?? "the configured key";
    if (!settings.apiKey)
      return err({
        type: "not_configured",
        message: `no Tavily API key (${keySource} is not set)`,
      });
    if (process.env.VITEST !== undefined && !settings.endpoint)
      return err({
        type: "not_configured",
        message: "in a test run the Tavily endpoint must be configured (no test may reach the real API)",
      });
    if (!(options.isInstalled ?? installed)())
      return err({
        type: "not_configured",
        message: "the Tavily provider needs the @tavily/core package (npm i @tavily/core)",
      });
    const apiKey = settings.apiKey;
    const endpoint = settings.endpoint ?? DEFAULT_TAVILY_ENDPOINT;
    const load = options.load ?? defaultLoader;
    let client: ReturnType<TavilyModule["tavily"]> | undefined;
    let module: TavilyModule | undefined;
    const describe = `Tavily (${endpoint}, key from ${keySource})`;

    const classify = (error: unknown): SearchError => {
      if (module && error instanceof module.TavilyKeylessLimitError) {
        const retry = error.retryAfter ? `; retry after ${error.retryAfter} s` : "";
        return {
          type: "quota",
          message: `${describe} limit reached (${error.capType ?? "limit"}): ${error.message.replace(/\.$/, "")}${retry}`,
        };
      }
      const text = error instanceof Error ? error.message : String(error);
      // The SDK keeps the status only in this form ("401 Error: {...}"); other errors carry Tavily's own words.
      const status = /^(\d{3}) Error:/.exec(text)?.[1];
      if (status) {
        const code = Number(status);
        const type =
          code === 401 || code === 403
            ? "auth"
            : code === 429
              ? "rate_limit"
              : code === 432 || code === 433
                ? "quota"
                : "provider";
        const hint = type === "auth" ? ` Check the key in ${keySource}.` : "";
        return { type, status: code, message: `${describe} answered HTTP ${code}.${hint}` };
      }
      if (text.startsWith("An unexpected error occurred"))
        return {
          type: "network",
          message: `${describe} could not be reached: ${text.replace(/^.*?Error: /, "")}`,
        };
      return { type: "provider", message: `${describe} refused the search: ${text}` };
    };

    const provider: SearchProvider = {
      name: "tavily",
      async search(request, signal): Promise<Result<SearchResponse, SearchError>> {
        try {
          if (!client) {
            module = await load();
            client = module.tavily({ apiKey, apiBaseURL: endpoint, clientSource: "keel" });
          }
        } catch (error) {
          return err({
            type: "not_configured",
            message: `@tavily/core could not be loaded: ${String(error)}`,
          });
        }
        // The SDK takes no signal; Keel's own deadline (the SDK's is a second longer) ends the call.
        const timeoutMs = settings.timeoutMs;
        const call = client.search(
          request.query,
          tavilyRequestOptions(request, Math.ceil(timeoutMs / 1000) + 1),
        );
        call.catch(() => {});
        let timer: NodeJS.Timeout | undefined;
        let onAbort: (() => void) | undefined;
        const stopped = new Promise<"timeout" | "aborted">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), timeoutMs);
          onAbort = () => resolve("aborted");
          signal.addEventListener("abort", onAbort, { once: true });
        });
        try {
          const answer = await Promise.race([call, stopped]);
          if (answer === "timeout")
            return err({
              type: "timeout",
              message: `${describe} did not answer within ${timeoutMs / 1000} s`,
            });
          if (answer === "aborted") return err({ type: "network", message: "the search was stopped" });
          if (!answer || !Array.isArray(answer.results))
            return err({ type: "bad_response", message: `${describe} sent an answer without results` });
          return ok({
            provider: "tavily",
            results: answer.results.map((r) => ({
              title: r.title ?? "",
              url: r.url,
              snippet: r.content ?? "",
              ...(r.publishedDate ? { published: r.publishedDate } : {}),
              ...(typeof r.score === "number" ? { score: r.score } : {}),
            })),
            ...(request.includeAnswer && answer.answer ? { answer: answer.answer } : {}),
            usage: {
              requests: 1,
              ...(typeof answer.usage?.credits === "number" ? { credits: answer.usage.credits } : {}),
            },
          });
        } catch (error) {
          return err(classify(error));
        } finally {
          clearTimeout(timer);
          // The run's signal outlives the search: each search must not leave a listener on it.
          if (onAbort) signal.removeEventListener("abort", onAbort);
        }
      },
    };
    return ok(provider);
  };
}
