// What a response body is (markdown, HTML, JSON, other text, or binary) and how to decode it:
// the Content-Type charset, then a BOM, then an HTML <meta> charset, then UTF-8.

export type ContentKind = "markdown" | "html" | "json" | "text" | "binary";

export interface MediaType {
  /** `text/html`, lower case, no parameters; empty when the server sent none. */
  essence: string;
  charset?: string;
}

export function parseContentType(header: string | undefined): MediaType {
  if (!header) return { essence: "" };
  const [essence, ...params] = header.split(";");
  const out: MediaType = { essence: essence!.trim().toLowerCase() };
  for (const param of params) {
    const [name, ...value] = param.split("=");
    if (name?.trim().toLowerCase() === "charset")
      out.charset = value.join("=").trim().replace(/^"|"$/g, "").toLowerCase();
  }
  return out;
}

const TEXT_APPLICATION = new Set([
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/xml",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson",
  "application/rss+xml",
  "application/atom+xml",
]);

/** Control bytes other than tab, CR, LF, FF and ESC: text files do not have them. */
function looksBinary(body: Buffer): boolean {
  const sample = body.subarray(0, 4096);
  if (
    sample.length >= 2 &&
    ((sample[0] === 0xff && sample[1] === 0xfe) || (sample[0] === 0xfe && sample[1] === 0xff))
  )
    return false; // UTF-16 with a BOM
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12 && byte !== 27) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

export function kindOf(type: MediaType, body: Buffer): ContentKind {
  const e = type.essence;
  if (e === "text/markdown" || e === "text/x-markdown") return "markdown";
  if (e === "text/html" || e === "application/xhtml+xml") return "html";
  if (e === "application/json" || e.endsWith("+json")) return "json";
  if (e.startsWith("text/") || TEXT_APPLICATION.has(e) || e.endsWith("+xml")) return "text";
  if (e === "" || e === "application/octet-stream") {
    // No type, or the generic one: sniff rather than trust it.
    if (looksBinary(body)) return "binary";
    const head = body.subarray(0, 512).toString("latin1").trimStart().toLowerCase();
    return head.startsWith("<!doctype html") || head.startsWith("<html") ? "html" : "text";
  }
  return "binary";
}

function bomCharset(body: Buffer): { charset: string; skip: number } | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { charset: "utf-8", skip: 3 };
  if (body[0] === 0xff && body[1] === 0xfe) return { charset: "utf-16le", skip: 2 };
  if (body[0] === 0xfe && body[1] === 0xff) return { charset: "utf-16be", skip: 2 };
  return undefined;
}

/** `<meta charset="x">` or `<meta http-equiv="Content-Type" content="…; charset=x">` near the top. */
function metaCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 4096).toString("latin1");
  const direct = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return direct?.[1]?.toLowerCase();
}

export interface Decoded {
  text: string;
  /** The charset used. */
  charset: string;
  /** Set when the declared charset is unknown and UTF-8 was used instead. */
  note?: string;
}

export function decodeBody(body: Buffer, type: MediaType, kind: ContentKind): Decoded {
  const bom = bomCharset(body);
  const declared = type.charset ?? (bom ? undefined : kind === "html" ? metaCharset(body) : undefined);
  const charset = bom?.charset ?? declared ?? "utf-8";
  const bytes = bom ? body.subarray(bom.skip) : body;
  try {
    const decoder = new TextDecoder(charset);
    const text = decoder.decode(bytes);
    return { text, charset };
  } catch {
    return {
      text: new TextDecoder("utf-8").decode(bytes),
      charset: "utf-8",
      note: `the page declares charset "${charset}", which is not known here; it was read as UTF-8`,
    };
  }
}
