// One HTTP/1.1 request over a connection opened by connect.ts: headers, decompression, and a
// body read up to a byte cap (counted after decompression, so a small gzip cannot grow unbounded).
import { request as httpRequest, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { err, ok, type Result } from "neverthrow";
import { describeSocketError, type NetError, netError } from "./errors.js";

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The body went past `maxBytes` and was cut there. */
  truncated: boolean;
  /** What Content-Length announced (bytes on the wire), when it did. */
  declaredLength?: number;
}

export interface HttpRequestOptions {
  url: URL;
  socket: Socket;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** Stop reading the body past this many (decoded) bytes. */
  maxBytes: number;
  /** False: return after the headers (redirects), with an empty body. */
  readBody: boolean;
  signal: AbortSignal;
}

/** node:zlib on the first compressed body: the extension's activation does not pay for loading it. */
function decoderFor(encoding: string | undefined): (() => NodeJS.ReadWriteStream) | "identity" | undefined {
  const zlib = () => process.getBuiltinModule("node:zlib");
  switch ((encoding ?? "identity").trim().toLowerCase()) {
    case "identity":
    case "":
      return "identity";
    case "gzip":
    case "x-gzip":
      return () => zlib().createGunzip();
    case "deflate":
      return () => zlib().createInflate();
    case "br":
      return () => zlib().createBrotliDecompress();
    default:
      return undefined;
  }
}

function flatHeaders(message: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

async function readCapped(
  stream: Readable,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Result<{ body: Buffer; truncated: boolean }, NetError>> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      if (signal.aborted) break;
      const buf = chunk as Buffer;
      if (size + buf.length > maxBytes) {
        chunks.push(buf.subarray(0, maxBytes - size));
        size = maxBytes;
        stream.destroy();
        return ok({ body: Buffer.concat(chunks), truncated: true });
      }
      chunks.push(buf);
      size += buf.length;
    }
  } catch (error) {
    if (signal.aborted) return err(netError("aborted", "the download was stopped"));
    const code = (error as { code?: string }).code;
    if (code === "Z_DATA_ERROR" || code === "ERR_BROTLI_DECOMPRESSION_FAILED" || code === "Z_BUF_ERROR")
      return err(netError("protocol", "the server sent a body that does not decompress"));
    return err(describeSocketError(error, "the server"));
  }
  if (signal.aborted) return err(netError("aborted", "the download was stopped"));
  return ok({ body: Buffer.concat(chunks), truncated: false });
}

export function sendRequest(options: HttpRequestOptions): Promise<Result<HttpResponse, NetError>> {
  const { url, socket, signal } = options;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Result<HttpResponse, NetError>) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      socket.destroy();
      resolve(result);
    };
    const req = httpRequest({
      createConnection: () => socket,
      host: url.hostname,
      path: `${url.pathname}${url.search}`,
      method: options.method ?? "GET",
      setHost: false,
      headers: { host: url.host, connection: "close", ...options.headers },
    });
    const onAbort = () => {
      req.destroy();
      finish(err(netError("aborted", "the request was stopped")));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => finish(err(describeSocketError(error, url.host))));
    req.on("response", async (message) => {
      const headers = flatHeaders(message);
      const declared = Number(headers["content-length"]);
      const base = {
        status: message.statusCode ?? 0,
        headers,
        ...(Number.isFinite(declared) && headers["content-length"] !== undefined
          ? { declaredLength: declared }
          : {}),
      };
      if (!options.readBody) {
        message.destroy();
        finish(ok({ ...base, body: Buffer.alloc(0), truncated: false }));
        return;
      }
      const decoder = decoderFor(headers["content-encoding"]);
      if (decoder === undefined) {
        message.destroy();
        finish(
          err(
            netError(
              "protocol",
              `the server used an unsupported content encoding: ${headers["content-encoding"]}`,
            ),
          ),
        );
        return;
      }
      const stream: Readable = decoder === "identity" ? message : message.pipe(decoder() as never);
      if (decoder !== "identity") message.on("error", (e) => (stream as Readable).destroy(e));
      const read = await readCapped(stream, options.maxBytes, signal);
      message.destroy();
      finish(read.map((r) => ({ ...base, ...r })));
    });
    req.end(options.body);
  });
}
