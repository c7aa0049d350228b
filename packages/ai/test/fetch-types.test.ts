// fetch-types: the Headers and Response subset the transport hands the SDKs, held against Node's
// own (undici's) classes for the same operations, and their refusals.
import { describe, expect, it } from "vitest";
import { FetchFormData, FetchHeaders, FetchResponse } from "../src/transport/fetch-types.js";

type Op = (h: {
  append(n: string, v: string): void;
  set(n: string, v: string): void;
  delete(n: string): void;
}) => void;

const scripts: Op[][] = [
  [
    (h) => h.append("Content-Type", "application/json"),
    (h) => h.append("X-B", "1"),
    (h) => h.append("x-b", "2"),
  ],
  [(h) => h.set("Accept", "a"), (h) => h.set("accept", "b"), (h) => h.append("ACCEPT", " c ")],
  [(h) => h.append("Set-Cookie", "a=1"), (h) => h.append("set-cookie", "b=2"), (h) => h.append("Z", "z")],
  [(h) => h.append("x-a", "1"), (h) => h.delete("X-A"), (h) => h.append("y", "\tpadded\t")],
];

describe("FetchHeaders", () => {
  it("answers like Node's Headers for the same appends, sets and deletes", () => {
    for (const script of scripts) {
      const ours = new FetchHeaders();
      const node = new Headers();
      for (const op of script) {
        op(ours);
        op(node);
      }
      expect([...ours]).toEqual([...node]);
      for (const name of ["content-type", "X-B", "accept", "set-cookie", "x-a", "y", "missing"]) {
        expect(ours.get(name)).toBe(node.get(name));
        expect(ours.has(name)).toBe(node.has(name));
      }
      expect(ours.getSetCookie()).toEqual(node.getSetCookie());
      expect([...ours.keys()]).toEqual([...node.keys()]);
      expect([...ours.values()]).toEqual([...node.values()]);
    }
  });

  it("is built from pairs, a record, its own kind or Node's Headers", () => {
    const expected = [
      ["a", "1"],
      ["b", "2"],
    ];
    expect([
      ...new FetchHeaders([
        ["B", "2"],
        ["a", "1"],
      ]),
    ]).toEqual(expected);
    expect([...new FetchHeaders({ b: "2", A: "1" })]).toEqual(expected);
    expect([...new FetchHeaders(new FetchHeaders({ a: "1", b: "2" }))]).toEqual(expected);
    expect([...new FetchHeaders(new Headers({ a: "1", b: "2" }))]).toEqual(expected);
    const seen: string[] = [];
    new FetchHeaders({ a: "1" }).forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual(["a=1"]);
    expect(Object.prototype.toString.call(new FetchHeaders())).toBe("[object Headers]");
  });

  it("refuses what Node's Headers refuses: bad names, CR/LF in values, entries that are not pairs", () => {
    expect(() => new FetchHeaders({ "bad name": "x" })).toThrow(TypeError);
    expect(() => new FetchHeaders().set("x", "a\r\nInjected: yes")).toThrow(TypeError);
    expect(() => new FetchHeaders([["only-name"]] as unknown as [string, string][])).toThrow(TypeError);
    expect(() => new FetchHeaders(["ab"] as unknown as [string, string][])).toThrow(TypeError);
    expect(() => new Headers(["ab"] as unknown as [string, string][])).toThrow(TypeError);
    expect(() => new Headers({ "bad name": "x" })).toThrow(TypeError);
  });
});

describe("FetchResponse", () => {
  it("reads its body once, as text, JSON, bytes or a blob, and clone() gives a second reader", async () => {
    const r = new FetchResponse('{"a":1}', { status: 201, headers: { "X-Id": "7" } });
    expect(r.ok).toBe(true);
    expect(r.status).toBe(201);
    expect(r.headers.get("x-id")).toBe("7");
    expect(r.headers.get("content-type")).toBe(new Response("x").headers.get("content-type"));
    const copy = r.clone();
    expect(await r.json()).toEqual({ a: 1 });
    expect(r.bodyUsed).toBe(true);
    await expect(r.text()).rejects.toThrow(TypeError);
    expect(await copy.text()).toBe('{"a":1}');
    const bytes = new FetchResponse(new Uint8Array([104, 105]));
    expect(new TextDecoder().decode(await bytes.arrayBuffer())).toBe("hi");
    expect(await (await new FetchResponse("hey").blob()).text()).toBe("hey");
  });

  it("streams a ReadableStream body as it comes, and an empty body reads as nothing", async () => {
    const chunks = ["data: 1\n\n", "data: 2\n\n"];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    });
    const r = new FetchResponse(stream, { status: 200 });
    const read: string[] = [];
    for await (const chunk of r.body as ReadableStream<Uint8Array>)
      read.push(new TextDecoder().decode(chunk));
    expect(read).toEqual(chunks);
    const empty = new FetchResponse(null, { status: 204 });
    expect(empty.body).toBeNull();
    expect(await empty.text()).toBe("");
  });

  it("refuses what Node's Response refuses: a status outside 200-599, a body on a null-body status", () => {
    for (const make of [
      (body: string | null, status: number) => new FetchResponse(body, { status }),
      (body: string | null, status: number) => new Response(body, { status }),
    ]) {
      expect(() => make(null, 199)).toThrow(RangeError);
      expect(() => make(null, 600)).toThrow(RangeError);
      expect(() => make("x", 204)).toThrow(TypeError);
      expect(make(null, 599).ok).toBe(false);
    }
    expect(new FetchResponse(null, { status: 404, statusText: "Not Found" }).statusText).toBe("Not Found");
  });
});

describe("FetchFormData", () => {
  it("recognises Node's FormData by its tag and makes Node's when constructed", () => {
    expect(new FormData() instanceof FetchFormData).toBe(true);
    expect({} instanceof FetchFormData).toBe(false);
    expect(("x" as unknown as object) instanceof FetchFormData).toBe(false);
    const made = new FetchFormData() as unknown as FormData;
    made.append("a", "1");
    expect(made instanceof FormData).toBe(true);
    expect(made.get("a")).toBe("1");
  });
});
