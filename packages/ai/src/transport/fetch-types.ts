// The part of fetch's Headers and Response that the provider SDKs and nodeFetch use, without
// undici: Node defines its Headers, Response and FormData in the undici bundle, and the first touch
// of any of them loads all of it (~10-15 ms and ~3 MB on a keel start, measured on Node 24), before
// the first request can go out. nodeFetch answers with FetchResponse; the CLI's bundle also gives
// these to the SDKs for the bare names (apps/cli/src/fetch-globals.ts). Behaviour follows the Fetch
// standard for what is here; what is not here throws a TypeError that says so.

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

type HeaderPairs = Iterable<readonly [string, string]> | Iterable<readonly string[]>;
export type FetchHeadersInit = HeaderPairs | Record<string, string> | undefined | null;

function headerName(name: unknown): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: "${text}" is not a valid header name`);
  return text.toLowerCase();
}

function headerValue(value: unknown): string {
  const text = String(value).replace(HTTP_WHITESPACE, "");
  if (/[\0\r\n]/.test(text)) throw new TypeError("Headers: a header value must not hold NUL, CR or LF");
  return text;
}

/** A header list: names case-insensitive, repeated values joined with ", " (Set-Cookie kept apart). */
export class FetchHeaders {
  readonly #values = new Map<string, string[]>();

  constructor(init?: FetchHeadersInit) {
    if (init == null) return;
    if (typeof init !== "object") throw new TypeError("Headers: init must be an object");
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        // A pair is a sequence object: a string ("ab") is iterable but is not one.
        if (typeof pair !== "object" || pair === null || !(Symbol.iterator in pair))
          throw new TypeError("Headers: each entry must be a [name, value] pair");
        const [name, value, ...rest] = [...pair];
        if (name === undefined || value === undefined || rest.length > 0)
          throw new TypeError("Headers: each entry must be a [name, value] pair");
        this.append(name, value);
      }
      return;
    }
    for (const [name, value] of Object.entries(init)) this.append(name, value);
  }

  append(name: string, value: string): void {
    const key = headerName(name);
    const list = this.#values.get(key);
    if (list) list.push(headerValue(value));
    else this.#values.set(key, [headerValue(value)]);
  }

  set(name: string, value: string): void {
    this.#values.set(headerName(name), [headerValue(value)]);
  }

  delete(name: string): void {
    this.#values.delete(headerName(name));
  }

  get(name: string): string | null {
    return this.#values.get(headerName(name))?.join(", ") ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(headerName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#values.get("set-cookie") ?? [])];
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      const list = this.#values.get(name);
      if (!list) continue;
      if (name === "set-cookie") for (const value of list) yield [name, value];
      else yield [name, list.join(", ")];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: FetchHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }
}

export type FetchBodyInit = ReadableStream<Uint8Array> | string | Uint8Array | ArrayBuffer | null | undefined;

export interface FetchResponseInit {
  status?: number;
  statusText?: string;
  headers?: FetchHeadersInit | FetchHeaders;
}

/** Statuses whose responses have no body: a Response refuses one. */
export const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function streamOf(body: string | Uint8Array | ArrayBuffer): ReadableStream<Uint8Array> {
  const bytes =
    typeof body === "string"
      ? new TextEncoder().encode(body)
      : body instanceof ArrayBuffer
        ? new Uint8Array(body.slice(0))
        : new Uint8Array(body);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** A response whose body is a web stream, read once (clone() first to read it twice). */
export class FetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: FetchHeaders;
  readonly url: string = "";
  readonly redirected: boolean = false;
  readonly type: string = "default";
  #body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(body?: FetchBodyInit, init: FetchResponseInit = {}) {
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599)
      throw new RangeError(`Response: status ${status} is outside 200-599`);
    if (body != null && NULL_BODY.has(status))
      throw new TypeError(`Response: a ${status} response cannot have a body`);
    this.status = status;
    this.statusText = init.statusText ?? "";
    this.headers = init.headers instanceof FetchHeaders ? init.headers : new FetchHeaders(init.headers);
    this.#body = body == null ? null : body instanceof ReadableStream ? body : streamOf(body);
    if (typeof body === "string" && !this.headers.has("content-type"))
      this.headers.set("content-type", "text/plain;charset=UTF-8");
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#body?.locked ?? false);
  }

  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError("Response: the body has already been read");
    this.#used = true;
    if (!this.#body) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.#body) {
      chunks.push(chunk);
      size += chunk.byteLength;
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
    return all;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get("content-type") ?? "";
    return new Blob([await this.bytes()], { type });
  }

  formData(): Promise<never> {
    return Promise.reject(new TypeError("Response: formData() is not supported by keel's transport"));
  }

  clone(): FetchResponse {
    if (this.bodyUsed) throw new TypeError("Response: cannot clone a response whose body was read");
    let other: ReadableStream<Uint8Array> | null = null;
    if (this.#body) [this.#body, other] = this.#body.tee();
    return new FetchResponse(other, {
      status: this.status,
      statusText: this.statusText,
      headers: new FetchHeaders(this.headers),
    });
  }

  get [Symbol.toStringTag](): string {
    return "Response";
  }
}

/**
 * FormData without loading undici to answer `instanceof` (the SDKs ask it of every request body):
 * a real FormData is recognised by its tag, and constructing one makes Node's.
 */
export class FetchFormData {
  constructor(...args: unknown[]) {
    // biome-ignore lint/correctness/noConstructorReturn: hands out Node's own FormData on purpose
    return new (globalThis.FormData as unknown as new (...a: unknown[]) => object)(...args);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      Object.prototype.toString.call(value) === "[object FormData]"
    );
  }
}
