// The client features' own rules: form answers checked against the schema, URL consent, prompt
// arguments from a command line, sampling's messages, cap and refusals.
import type { ExtensionUI } from "@keel/extension-sdk";
import { headlessUI } from "@keel/extension-sdk";
import { describe, expect, it } from "vitest";
import { elicit, parseAnswer } from "../src/features/elicitation.js";
import { promptArguments, splitArgs } from "../src/features/prompts.js";
import { sample, toMessages } from "../src/features/sampling.js";

function ui(answers: Partial<Pick<ExtensionUI, "confirm" | "input" | "select">>): ExtensionUI {
  return {
    ...headlessUI(),
    supports: { status: true, widget: true, notify: true, confirm: true, select: true, input: true },
    ...answers,
  };
}

describe("form elicitation", () => {
  it("checks answers against the field's schema", () => {
    const accepted = (result: ReturnType<typeof parseAnswer>) => result._unsafeUnwrap();
    const problemOf = (result: ReturnType<typeof parseAnswer>) => result._unsafeUnwrapErr();
    expect(accepted(parseAnswer({ type: "integer", minimum: 1 }, "3"))).toBe(3);
    expect(problemOf(parseAnswer({ type: "integer" }, "3.5"))).toEqual({
      type: "invalid_answer",
      message: "enter a whole number",
    });
    expect(problemOf(parseAnswer({ type: "number", maximum: 10 }, "11")).message).toBe("at most 10");
    expect(problemOf(parseAnswer({ type: "string", format: "email" }, "nope")).message).toBe(
      "not a valid email",
    );
    expect(accepted(parseAnswer({ type: "string", pattern: "^[a-z]+$" }, "abc"))).toBe("abc");
    expect(
      problemOf(parseAnswer({ type: "array", items: { enum: ["a", "b"] }, maxItems: 1 }, "a, b")).message,
    ).toBe("pick at most 1");
    expect(
      accepted(parseAnswer({ type: "array", items: { anyOf: [{ const: "#f00", title: "Red" }] } }, "Red")),
    ).toEqual(["#f00"]);
  });

  it("asks again after a bad answer and declines when the person says no at review", async () => {
    const inputs = ["x", "Ada"];
    const asked: string[] = [];
    const result = await elicit(
      {
        message: "Name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string", minLength: 2 } },
          required: ["name"],
        },
      },
      {
        server: "s",
        open: async () => true,
        ui: ui({
          input: async (_title, placeholder) => {
            asked.push(placeholder ?? "");
            return { status: "ok", value: inputs.shift()! };
          },
          confirm: async () => ({ status: "ok", value: false }),
        }),
      },
    );
    expect(asked[1]).toContain("at least 2 characters");
    expect(result).toEqual({ action: "decline" });
  });

  it("declines at once with nobody to ask", async () => {
    const result = await elicit(
      { message: "m", requestedSchema: { type: "object", properties: {} } },
      { server: "s", ui: headlessUI(), open: async () => true },
    );
    expect(result).toEqual({ action: "decline" });
  });
});

describe("URL elicitation", () => {
  it("shows the host, opens only after consent, and refuses non-web URLs", async () => {
    const opened: string[] = [];
    const open = async (url: URL) => {
      opened.push(url.href);
      return true;
    };
    const titles: string[] = [];
    const yes = ui({
      confirm: async (title) => {
        titles.push(title);
        return { status: "ok", value: true };
      },
    });
    const params = {
      mode: "url" as const,
      message: "Pay",
      url: "https://pay.example.com/x",
      elicitationId: "1",
    };
    expect(await elicit(params, { server: "shop", ui: yes, open })).toEqual({ action: "accept" });
    expect(titles).toEqual(['MCP server "shop" asks you to open pay.example.com']);
    expect(opened).toEqual(["https://pay.example.com/x"]);
    expect(
      await elicit({ ...params, url: "javascript:alert(1)" }, { server: "shop", ui: yes, open }),
    ).toEqual({
      action: "decline",
    });
    const cancel = ui({ confirm: async () => ({ status: "cancelled" }) });
    expect(await elicit(params, { server: "shop", ui: cancel, open })).toEqual({ action: "cancel" });
    expect(opened).toHaveLength(1);
  });
});

describe("prompt arguments", () => {
  const prompt = {
    name: "p",
    arguments: [
      { name: "city", required: true },
      { name: "note", required: false },
    ],
  };
  it("takes positional, quoted and name=value arguments, the last one taking the rest", () => {
    expect(splitArgs(`a "b c" 'd'`)).toEqual(["a", "b c", "d"]);
    expect(promptArguments(prompt, "Lisbon")._unsafeUnwrap()).toEqual({ city: "Lisbon" });
    expect(promptArguments(prompt, `note=hi city="New York"`)._unsafeUnwrap()).toEqual({
      city: "New York",
      note: "hi",
    });
    expect(promptArguments(prompt, "Porto bring an umbrella")._unsafeUnwrap()).toEqual({
      city: "Porto",
      note: "bring an umbrella",
    });
    expect(promptArguments(prompt, "")._unsafeUnwrapErr()).toEqual({
      type: "missing_arguments",
      message: "missing city",
      missing: ["city"],
    });
  });
});

describe("sampling", () => {
  const params = {
    messages: [{ role: "user" as const, content: { type: "text" as const, text: "Hi" } }],
    maxTokens: 500,
  };
  const policy = { enabled: true, maxTokens: 100, maxRequests: 1 };
  const approved = {
    approve: async () => ({ status: "allowed" as const, scope: "once" as const }),
    models: {
      complete: async (request: { maxTokens?: number }) => ({
        ok: true as const,
        message: {
          role: "assistant",
          content: [{ type: "text", text: `max ${request.maxTokens}` }],
          provider: "faux",
          model: "m",
          stopReason: "stop",
        },
      }),
    },
  } as never;

  it("turns a conversation into one user turn with the earlier turns quoted", () => {
    const messages = toMessages({
      maxTokens: 1,
      messages: [
        { role: "user", content: { type: "text", text: "Q" } },
        { role: "assistant", content: { type: "text", text: "A" } },
        { role: "user", content: { type: "image", data: "aGk=", mimeType: "image/png" } },
      ],
    });
    expect(messages).toHaveLength(1);
    const content = messages[0]!.content as { type: string; text?: string }[];
    expect(content[0]?.text).toContain("User: Q\n\nAssistant: A");
    expect(content[1]).toEqual({ type: "image", data: "aGk=", mimeType: "image/png" });
  });

  it("caps tokens, counts requests and refuses past the budget or without approval", async () => {
    const gate = { used: new Map<string, number>() };
    const signal = new AbortController().signal;
    const first = await sample("s", policy, params, approved, gate, signal);
    expect(first).toMatchObject({ role: "assistant", content: { text: "max 100" }, model: "faux/m" });
    await expect(sample("s", policy, params, approved, gate, signal)).rejects.toThrow(/budget used up/);
    const denied = { ...(approved as object), approve: async () => ({ status: "denied" as const }) } as never;
    await expect(sample("t", policy, params, denied, gate, signal)).rejects.toThrow(
      /User rejected sampling request/,
    );
  });
});
