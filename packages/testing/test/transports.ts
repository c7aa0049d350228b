// Test helper: the same SDK clients over either transport (socket server or faux fetch), so
// every dialect test runs twice and proves the two transports agree.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  createFauxFetch,
  FAUX_ORIGIN,
  type RecordedListing,
  type RecordedRequest,
  type Scenario,
  startMockServer,
} from "../src/index.js";

export type TransportKind = "server" | "faux";

export interface Transport {
  anthropic: Anthropic;
  openai: OpenAI;
  requests: RecordedRequest[];
  listings: RecordedListing[];
  setScenario(scenario: Scenario): void;
  close(): Promise<void>;
}

export const TRANSPORTS: TransportKind[] = ["server", "faux"];

export async function openTransport(
  kind: TransportKind,
  scenario: Scenario = { turns: [] },
): Promise<Transport> {
  const common = { apiKey: "test-key", maxRetries: 0 };
  if (kind === "server") {
    const server = await startMockServer(scenario);
    return {
      anthropic: new Anthropic({ ...common, baseURL: server.anthropicBaseUrl }),
      openai: new OpenAI({ ...common, baseURL: server.openaiBaseUrl }),
      requests: server.requests,
      listings: server.listings,
      setScenario: server.setScenario,
      close: server.close,
    };
  }
  const faux = createFauxFetch(scenario);
  return {
    anthropic: new Anthropic({ ...common, baseURL: FAUX_ORIGIN, fetch: faux.fetch }),
    openai: new OpenAI({ ...common, baseURL: `${FAUX_ORIGIN}/v1`, fetch: faux.fetch }),
    requests: faux.requests,
    listings: faux.listings,
    setScenario: faux.setScenario,
    close: async () => {},
  };
}

/** Runs `body`, expecting it to reject, and returns what it rejected with. */
export async function rejection(body: () => Promise<unknown>): Promise<unknown> {
  try {
    await body();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, but the call succeeded");
}
