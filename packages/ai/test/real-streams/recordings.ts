// The recorded provider streams the replay test reads: the published set beside the repository
// (../shared/real-streams, never copied in) and Keel's own recordings derived from the vendors'
// documentation (derived/), each split into the responses it holds.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type WireApi = "anthropic-messages" | "openai-completions" | "openai-responses";
export type Origin = "recorded" | "recorded-sanitized" | "hand-written" | "derived";

export interface Recording {
  id: string;
  api: WireApi;
  origin: Origin;
  model: string | null;
  note?: string;
  /** Where it came from: the source repository's path, or the documentation a derived one follows. */
  from: string;
  /** One entry per response the file holds, each its payloads in order (raw JSON text, as sent). */
  responses: string[][];
}

export interface SkippedRecording {
  id: string;
  reason: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** The checkout's root: the nearest folder above this file holding pnpm-workspace.yaml. */
function repositoryRoot(): string {
  for (let dir = HERE; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no pnpm-workspace.yaml above ${HERE}`);
  }
}

/**
 * The published recordings: `$KEEL_REAL_STREAMS`, else `shared/real-streams` beside the checkout
 * (CI: ../shared) or beside a folder holding it (a git worktree under wt/).
 */
export function realStreamsDir(): string {
  const fromEnv = process.env.KEEL_REAL_STREAMS;
  if (fromEnv) return resolve(fromEnv);
  const root = repositoryRoot();
  const tried: string[] = [];
  for (let dir = dirname(root), n = 0; n < 3; dir = dirname(dir), n++) {
    const candidate = join(dir, "shared", "real-streams");
    tried.push(candidate);
    if (existsSync(join(candidate, "SOURCES.json"))) return candidate;
  }
  throw new Error(
    `The recorded provider streams were not found (tried ${tried.join(", ")}). They live beside the checkout in ../shared/real-streams (or set KEEL_REAL_STREAMS).`,
  );
}

export const DERIVED_DIR = join(HERE, "derived");

/** The payloads of one recording file: JSON lines (`data:` prefixes and `[DONE]` dropped). */
export function payloadsOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    let payload = line.trim();
    if (payload === "" || payload.startsWith("event:")) continue;
    if (payload.startsWith("data:")) payload = payload.slice(5).trim();
    if (payload === "[DONE]") continue;
    out.push(payload);
  }
  return out;
}

/** Splits a file that holds several responses in a row at each message_start / response.created. */
export function splitResponses(api: WireApi, payloads: string[]): string[][] {
  if (api === "openai-completions") return [payloads];
  const opener = api === "anthropic-messages" ? "message_start" : "response.created";
  const responses: string[][] = [];
  for (const payload of payloads) {
    if (typeOf(payload) === opener || responses.length === 0) responses.push([]);
    responses.at(-1)!.push(payload);
  }
  return responses;
}

/** The `type` of a payload, read without trusting that it parses (hand-written ones may not). */
export function typeOf(payload: string): string | undefined {
  try {
    const value = JSON.parse(payload) as { type?: unknown };
    return typeof value.type === "string" ? value.type : undefined;
  } catch {
    return /"type"\s*:\s*"([^"]+)"/.exec(payload)?.[1];
  }
}

interface SourceEntry {
  id: string;
  api: WireApi | null;
  origin: Origin;
  model: string | null;
  note?: string;
  skip?: string;
  source?: { repo: string; path: string; commit: string };
  derivedFrom?: string[];
}

function fileName(id: string): string {
  return `${id.replaceAll("/", "__")}.txt`;
}

function load(dir: string, entries: SourceEntry[]): { recordings: Recording[]; skipped: SkippedRecording[] } {
  const recordings: Recording[] = [];
  const skipped: SkippedRecording[] = [];
  for (const entry of entries) {
    if (entry.skip || entry.api === null) {
      skipped.push({ id: entry.id, reason: entry.skip ?? "no wire API" });
      continue;
    }
    const text = readFileSync(join(dir, fileName(entry.id)), "utf8");
    recordings.push({
      id: entry.id,
      api: entry.api,
      origin: entry.origin,
      model: entry.model,
      ...(entry.note ? { note: entry.note } : {}),
      from: entry.source
        ? `${entry.source.repo}/${entry.source.path}@${entry.source.commit.slice(0, 12)}`
        : (entry.derivedFrom ?? []).join(" "),
      responses: splitResponses(entry.api, payloadsOf(text)),
    });
  }
  return { recordings, skipped };
}

export function loadRecordings(): {
  dir: string;
  recordings: Recording[];
  skipped: SkippedRecording[];
  files: number;
} {
  const dir = realStreamsDir();
  const published = JSON.parse(readFileSync(join(dir, "SOURCES.json"), "utf8")) as {
    fixtures: SourceEntry[];
  };
  const derived = JSON.parse(readFileSync(join(DERIVED_DIR, "SOURCES.json"), "utf8")) as {
    fixtures: SourceEntry[];
  };
  const a = load(dir, published.fixtures);
  const b = load(DERIVED_DIR, derived.fixtures);
  const files = readdirSync(dir).filter((f) => f.endsWith(".txt")).length;
  return {
    dir,
    recordings: [...a.recordings, ...b.recordings],
    skipped: [...a.skipped, ...b.skipped],
    files,
  };
}
