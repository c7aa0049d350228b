// Keeping known secrets out of what a tool returns: every copy of a secret in a JSON-safe value is
// replaced, exact or encoded (base64 at any alignment and URL-safe, hex, percent-encoding,
// reversed, rot13), and for longer secrets also a truncated piece of one (plain or encoded). One implementation for
// the kernel (every tool result) and for extensions (a connector scrubbing its own results).

export const REDACTED = "[redacted]";

/** Secrets shorter than this are not looked for at all: "1" or "yes" would redact everything. */
const MIN_SECRET = 4;
/** From this length on, a piece of the secret is looked for too, not just the whole. */
const FRAGMENTS_FROM = 16;
/** The shortest piece of a secret that counts (in the secret's own characters). */
const MIN_FRAGMENT = 10;
/** Length of the substrings every form is indexed by; no form's shortest match is shorter. */
const GRAM = 8;

interface Form {
  text: string;
  /** Shortest match that counts; the whole form when the secret is too short for pieces. */
  min: number;
}

export interface SecretScrubber {
  /** Returns `value` with every copy of a known secret replaced (strings, keys and nested values). */
  scrub<T>(value: T): T;
  /** Scrubs one string. */
  text(text: string): string;
  /** How many secrets it looks for. */
  readonly size: number;
}

const toHex = (bytes: Buffer) => bytes.toString("hex");
const percent = (bytes: Buffer) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
const rot13 = (s: string) =>
  s.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

/** The base64 characters that depend on the secret's bytes alone, for each of the three alignments. */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString("base64");
    const start = Math.ceil((pad * 8) / 6);
    const end = Math.floor(((pad + bytes.length) * 8) / 6);
    const core = encoded.slice(start, end);
    cores.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return cores;
}

function formsOf(secret: string): Form[] {
  // A short secret's encodings are short enough to turn up by chance: only the secret itself.
  if (secret.length < GRAM) return [{ text: secret, min: secret.length }];
  const bytes = Buffer.from(secret, "utf8");
  const pieces = secret.length >= FRAGMENTS_FROM;
  const raw = pieces ? MIN_FRAGMENT : secret.length;
  const scaled = (text: string, ratio: number): Form => ({
    text,
    min: pieces ? Math.max(GRAM, Math.ceil(raw * ratio)) : text.length,
  });
  const hex = toHex(bytes);
  const pct = percent(bytes);
  // Reversed and rot13 copies count whole: their pieces are too easily some other text.
  const reversed = [...secret].reverse().join("");
  const rotated = rot13(secret);
  return [
    { text: secret, min: raw },
    { text: reversed, min: reversed.length },
    { text: rotated, min: rotated.length },
    scaled(hex, 2),
    scaled(hex.toUpperCase(), 2),
    scaled(pct, 3),
    scaled(pct.toUpperCase(), 3),
    // A core is up to two characters shorter than the whole encoding, so its own length counts for short secrets.
    ...base64Cores(bytes).map((core) => (pieces ? scaled(core, 4 / 3) : { text: core, min: core.length })),
  ];
}

export function secretScrubber(secrets: readonly string[]): SecretScrubber {
  const live = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET))];
  const forms = live.flatMap(formsOf).filter((f, i, all) => all.findIndex((g) => g.text === f.text) === i);
  // Forms too short to index by GRAM are found with indexOf.
  const short = forms.filter((f) => f.text.length < GRAM || f.min < GRAM);
  const index = new Map<string, { form: Form; at: number }[]>();
  for (const form of forms) {
    if (form.text.length < GRAM || form.min < GRAM) continue;
    for (let at = 0; at + GRAM <= form.text.length; at++) {
      const gram = form.text.slice(at, at + GRAM);
      const list = index.get(gram);
      if (list) list.push({ form, at });
      else index.set(gram, [{ form, at }]);
    }
  }

  const text = (input: string): string => {
    if (forms.length === 0 || input.length < MIN_SECRET) return input;
    const spans: [number, number][] = [];
    for (const form of short) {
      for (let i = input.indexOf(form.text); i !== -1; i = input.indexOf(form.text, i + 1))
        spans.push([i, i + form.text.length]);
    }
    if (index.size > 0) {
      for (let i = 0; i + GRAM <= input.length; i++) {
        const hits = index.get(input.slice(i, i + GRAM));
        if (!hits) continue;
        let furthest = i;
        for (const { form, at } of hits) {
          // Grow the match both ways as far as the input keeps following this form.
          let left = 0;
          while (at - left > 0 && i - left > 0 && form.text[at - left - 1] === input[i - left - 1]) left++;
          let right = GRAM;
          while (
            at + right < form.text.length &&
            i + right < input.length &&
            form.text[at + right] === input[i + right]
          )
            right++;
          if (left + right >= form.min) {
            spans.push([i - left, i + right]);
            furthest = Math.max(furthest, i + right - GRAM);
          }
        }
        i = furthest;
      }
    }
    if (spans.length === 0) return input;
    spans.sort((a, b) => a[0] - b[0]);
    let out = "";
    let from = 0;
    let open: [number, number] | undefined;
    for (const span of spans) {
      if (open && span[0] <= open[1]) open[1] = Math.max(open[1], span[1]);
      else {
        if (open) {
          out += input.slice(from, open[0]) + REDACTED;
          from = open[1];
        }
        open = [...span];
      }
    }
    if (open) out += input.slice(from, open[0]) + REDACTED + input.slice(open[1]);
    else out += input.slice(from);
    return out;
  };

  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [text(k), walk(inner)]));
    return v;
  };
  return {
    scrub: <T>(value: T): T => (forms.length === 0 ? value : (walk(value) as T)),
    text,
    size: live.length,
  };
}

/** Replaces every copy of each secret in every string inside `value` (JSON-safe in, JSON-safe out). */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  return secretScrubber(secrets).scrub(value);
}
