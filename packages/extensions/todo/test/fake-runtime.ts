// A small in-memory runtime for unit tests: state kept in a variable, UI calls recorded.
import type { ExtensionRuntime, ExtensionUI, ToolCallContext } from "@keel/extension-sdk";
import { testRuntime, testToolContext } from "@keel/extension-sdk/testing";

export interface UiCall {
  method: "setStatus" | "setWidget" | "notify";
  key?: string;
  value: unknown;
}

export interface FakeRuntime<S> extends ExtensionRuntime<unknown, S, undefined> {
  uiCalls: UiCall[];
  /** Every state the extension set, in order. */
  history: S[];
}

export function fakeRuntime<S>(initial: S): FakeRuntime<S> {
  let state = initial;
  const uiCalls: UiCall[] = [];
  const history: S[] = [];
  const set = (next: S) => {
    // A JSON round trip, like the journal: nothing but data survives.
    state = JSON.parse(JSON.stringify(next)) as S;
    history.push(state);
  };
  const ui: ExtensionUI = {
    supports: { status: true, widget: true, notify: true, confirm: false, select: false, input: false },
    setStatus: (key, text) => uiCalls.push({ method: "setStatus", key, value: text }),
    setWidget: (key, lines) => uiCalls.push({ method: "setWidget", key, value: lines }),
    notify: (message) => uiCalls.push({ method: "notify", value: message }),
    confirm: async () => ({ status: "unsupported" }),
    select: async () => ({ status: "unsupported" }),
    input: async () => ({ status: "unsupported" }),
  };
  return {
    ...testRuntime<unknown, S>({ id: "test" }, { cwd: "/tmp" }),
    state: { get: () => state, set, update: (fn) => set(fn(state)) },
    ui,
    uiCalls,
    history,
  };
}

export function toolContext(): ToolCallContext {
  return testToolContext({ toolCallId: "call-1" });
}

/** The third argument every hook and command gets. */
export const hookContext: { signal: AbortSignal } = { signal: new AbortController().signal };
