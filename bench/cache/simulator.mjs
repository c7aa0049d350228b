// An Anthropic prompt cache replayed over the requests a session sent, and an ideal client beside
// it, to say what the session was billed for its input against what it had to be. Rules from
// Anthropic's prompt-caching guide: the prefix is tools → system → messages, split into blocks; a
// cache_control marker writes the prefix up to its block, and a lookup from a marker checks the
// prefixes ending at that block and the ~20 blocks before it; a change of thinking parameters voids
// the cached messages (not tools or system); prefixes under 1,024 tokens are not cached. Prices
// as multiples of the base input price: uncached 1, cache write 1.25 (5-minute), cache read 0.1.
import { createHash } from "node:crypto";

export const LOOKBACK = 20;
export const MIN_CACHEABLE = 1024;
export const PRICE = { input: 1, write: 1.25, read: 0.1 };

const tokens = (text) => Math.ceil(text.length / 4);

function strip(value) {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (k !== "cache_control") out[k] = strip(v);
    return out;
  }
  return value;
}

/** The request as blocks in cache order, each with its prefix hash, size and whether it is marked. */
export function blocksOf(body) {
  const raw = [];
  for (const tool of body.tools ?? []) raw.push(tool);
  const system =
    typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []);
  for (const block of system) raw.push(block);
  // Thinking parameters key the message level: a change voids the cached messages only.
  raw.push({ thinking: body.thinking ?? null, weight: 0 });
  for (const message of body.messages ?? []) {
    const content =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    content.forEach((block, i) => {
      raw.push({ role: message.role, first: i === 0, block });
    });
  }
  let hash = createHash("sha256").update(String(body.model)).digest("hex");
  let total = 0;
  return raw.map((entry) => {
    const marked = Boolean(entry.cache_control ?? entry.block?.cache_control);
    const text = JSON.stringify(strip(entry));
    hash = createHash("sha256").update(hash).update(text).digest("hex");
    const size = entry.weight === 0 ? 0 : tokens(text);
    total += size;
    return { hash, size, end: total, marked };
  });
}

/** What one request is billed on a cache that holds `cache` (a Set of prefix hashes), which it updates. */
export function billRequest(body, cache) {
  const blocks = blocksOf(body);
  const total = blocks.at(-1)?.end ?? 0;
  let read = 0;
  let lastMark = -1;
  blocks.forEach((b, i) => {
    if (!b.marked) return;
    lastMark = i;
    for (let j = i; j >= Math.max(0, i - LOOKBACK + 1); j--) {
      if (cache.has(blocks[j].hash)) {
        read = Math.max(read, blocks[j].end);
        break;
      }
    }
  });
  const cachedUpTo = lastMark === -1 ? 0 : blocks[lastMark].end;
  const write = Math.max(0, cachedUpTo - read);
  blocks.forEach((b, i) => {
    if (b.marked && b.end >= MIN_CACHEABLE) cache.add(blocks[i].hash);
  });
  // A write below the minimum is not cached: billed as plain input.
  const written = cachedUpTo >= MIN_CACHEABLE ? write : 0;
  const input = total - read - written;
  return {
    total,
    read,
    write: written,
    input,
    billed: input * PRICE.input + written * PRICE.write + read * PRICE.read,
  };
}

/**
 * An ideal client: every prefix any earlier request sent is read back, whatever the markers; the
 * rest is written once. The floor a session's input can be billed at.
 */
export function idealRequest(body, seen) {
  const blocks = blocksOf(body);
  const total = blocks.at(-1)?.end ?? 0;
  let read = 0;
  for (const b of blocks) if (seen.has(b.hash)) read = b.end;
  for (const b of blocks) seen.add(b.hash);
  const rest = total - read;
  return { total, read, write: rest, input: 0, billed: rest * PRICE.write + read * PRICE.read };
}

/** Bills requests in order on one cache (Keel's markers) and on an ideal client. */
export function simulate(bodies) {
  const cache = new Set();
  const seen = new Set();
  return bodies.map((body) => ({ keel: billRequest(body, cache), ideal: idealRequest(body, seen) }));
}

export function sum(rows, pick) {
  return rows.reduce((s, r) => s + pick(r), 0);
}
