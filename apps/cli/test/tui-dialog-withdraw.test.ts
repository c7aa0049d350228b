// A question an extension withdraws (its signal aborts: the MCP call that asked was cancelled)
// closes in the TUI and answers "cancelled"; other dialogs stay.
import { describe, expect, it } from "vitest";
import { UiStore } from "../src/tui/store.js";

describe("TUI dialogs", () => {
  it("close when the question is withdrawn, and answer undefined", async () => {
    const store = new UiStore();
    const controller = new AbortController();
    const kept = store.ask<string | undefined>((answer) => ({
      kind: "input",
      title: "kept",
      editor: { text: "", cursor: 0 } as never,
      answer,
    }));
    const withdrawn = store.ask<boolean | undefined>(
      (answer) => ({ kind: "confirm", title: "form", selected: 0, answer }),
      controller.signal,
    );
    expect(store.dialogs.map((d) => ("title" in d ? d.title : d.kind))).toEqual(["kept", "form"]);
    controller.abort();
    expect(await withdrawn).toBeUndefined();
    expect(store.dialogs.map((d) => ("title" in d ? d.title : d.kind))).toEqual(["kept"]);
    // Asked with a signal already aborted: never shown.
    expect(
      await store.ask<boolean | undefined>(
        (answer) => ({ kind: "confirm", title: "late", selected: 0, answer }),
        controller.signal,
      ),
    ).toBeUndefined();
    expect(store.dialogs).toHaveLength(1);
    store.dialogs[0]!.answer(undefined as never);
    expect(await kept).toBeUndefined();
    store.dispose();
  });
});
