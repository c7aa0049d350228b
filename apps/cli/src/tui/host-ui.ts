// The kernel's UI questions answered by the TUI: status and widgets into the store, notices, and
// approvals, confirms, selects and inputs as dialogs (withdrawn when the asker's signal ends).
import type { HostUI } from "@keel/coding-agent";
import { editorWith } from "./editor.js";
import type { UiStore } from "./store.js";

/** A select dialog; the chosen index, or undefined when dismissed. */
export function pickDialog(
  store: UiStore,
  title: string,
  options: { label: string; detail?: string }[],
  selected = 0,
  signal?: AbortSignal,
): Promise<number | undefined> {
  return store.ask<number | undefined>(
    (answer) => ({
      kind: "select",
      title,
      options,
      selected,
      filter: "",
      answer,
    }),
    signal,
  );
}

/** A one-line input dialog; the text, or undefined when dismissed. */
export function inputDialog(
  store: UiStore,
  title: string,
  placeholder?: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  return store.ask<string | undefined>(
    (answer) => ({
      kind: "input",
      title,
      ...(placeholder !== undefined ? { placeholder } : {}),
      editor: editorWith(""),
      answer,
    }),
    signal,
  );
}

/**
 * The HostUI a TUI agent is created with. `subscribed` says whether the agent's events already
 * reach the transcript (then a notify arrives as an event too and is not noted twice).
 */
export function tuiHostUI(store: UiStore, subscribed: () => boolean): HostUI {
  return {
    supports: { status: true, widget: true, notify: true, confirm: true, select: true, input: true },
    // Also sent as events; handled here too because extensions draw during createCodingAgent.
    setStatus: (key, text) => {
      if (text === undefined) store.statuses.delete(key);
      else store.statuses.set(key, text);
      store.schedule();
    },
    setWidget: (key, lines) => {
      if (lines === undefined) store.widgets.delete(key);
      else store.widgets.set(key, lines);
      store.schedule();
    },
    notify: (message, level = "info") => {
      if (!subscribed()) store.note(level, message);
    },
    approve: (request) =>
      store.ask((answer) => ({ kind: "approval", request, selected: 0, scroll: 0, answer })),
    confirm: async (title, message, ask) => {
      const yes = await store.ask<boolean | undefined>(
        (answer) => ({
          kind: "confirm",
          title,
          ...(message !== undefined ? { message } : {}),
          selected: 0,
          answer,
        }),
        ask?.signal,
      );
      return yes === undefined ? { status: "cancelled" } : { status: "ok", value: yes };
    },
    select: async (title, options, ask) => {
      const index = await pickDialog(
        store,
        title,
        options.map((label) => ({ label })),
        0,
        ask?.signal,
      );
      return index === undefined ? { status: "cancelled" } : { status: "ok", value: options[index]! };
    },
    input: async (title, placeholder, ask) => {
      const text = await inputDialog(store, title, placeholder, ask?.signal);
      return text === undefined ? { status: "cancelled" } : { status: "ok", value: text };
    },
  };
}
