// The whole screen: finished conversation (static), live tail, tool output panel, queued messages,
// widgets, then either a dialog or the prompt box, completions and the status line.
import { Box, useInput } from "ink";
import { type ReactElement, useCallback, useSyncExternalStore } from "react";
import type { Controller } from "../controller.js";
import { handleKey } from "../input-handler.js";
import { DialogView } from "./dialog-view.js";
import { h } from "./h.js";
import { Completions, InputBox, QueuedView } from "./input-view.js";
import { OutputPanel } from "./output-panel.js";
import { StatusLine } from "./status-line.js";
import { Finished, Live } from "./transcript-view.js";
import { Widgets } from "./widgets-view.js";

export function App({ controller }: { controller: Controller }): ReactElement | null {
  const { store } = controller;
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const onKey = useCallback<Parameters<typeof useInput>[0]>(
    (input, key) => handleKey(controller, input, key),
    [controller],
  );
  useInput(onKey);
  const widgetRows = snapshot.widgets.reduce((n, [, lines]) => n + lines.length, 0);
  const reserved = 8 + widgetRows + snapshot.queued.length + snapshot.editor.text.split("\n").length;
  return h(
    Box,
    { flexDirection: "column" },
    h(Finished, { items: snapshot.done }),
    h(Live, { live: snapshot.live, reserved }),
    snapshot.outputPanel ? h(OutputPanel, { tool: snapshot.outputPanel }) : null,
    h(QueuedView, { queued: snapshot.queued }),
    h(Widgets, { widgets: snapshot.widgets }),
    snapshot.dialog
      ? h(DialogView, { dialog: snapshot.dialog })
      : h(InputBox, { editor: snapshot.editor, running: snapshot.running, focused: true }),
    snapshot.dialog
      ? null
      : h(Completions, { items: snapshot.completions, selected: snapshot.completionIndex }),
    h(StatusLine, { snapshot }),
  );
}
