// The whole screen: finished conversation (static), live tail, tool output panel, queued messages,
// widgets, then either a dialog or the prompt box, completions and the status line.
import { Box, useInput, usePaste, useStdout, useWindowSize } from "ink";
import { type ReactElement, useCallback, useEffect, useSyncExternalStore } from "react";
import type { Controller } from "../controller.js";
import { handleKey, handlePaste } from "../input-handler.js";
import { DialogView } from "./dialog-view.js";
import { h } from "./h.js";
import { Completions, InputBox, QueuedView } from "./input-view.js";
import { OutputPanel } from "./output-panel.js";
import { StatusLine, statusLayout } from "./status-line.js";
import { Finished, Live } from "./transcript-view.js";
import { Widgets } from "./widgets-view.js";

/** Clears the screen and scrollback of a resized terminal, then redraws (debounced). */
const CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H";
const RESIZE_SETTLE_MS = 60;

/**
 * A terminal that changes width rewraps what is on screen, so ink's erase-and-redraw of the live
 * area leaves broken copies of the input box behind. Instead, once the size settles, the screen
 * and scrollback are cleared and everything is printed again at the new width.
 */
function redrawOnResize(stdout: NodeJS.WriteStream, redraw: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let width = stdout.columns;
  const onResize = () => {
    if (stdout.columns === width) return;
    width = stdout.columns;
    clearTimeout(timer);
    timer = setTimeout(() => {
      stdout.write(CLEAR_SCREEN);
      redraw();
    }, RESIZE_SETTLE_MS);
  };
  stdout.on("resize", onResize);
  return () => {
    clearTimeout(timer);
    stdout.off("resize", onResize);
  };
}

export function App({ controller }: { controller: Controller }): ReactElement | null {
  const { store } = controller;
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const onKey = useCallback<Parameters<typeof useInput>[0]>(
    (input, key) => handleKey(controller, input, key),
    [controller],
  );
  useInput(onKey);
  // Pastes arrive whole (ink turns bracketed paste on), so their line breaks stay text and a typed
  // Enter always submits.
  usePaste(useCallback((text: string) => handlePaste(controller, text), [controller]));
  const { stdout } = useStdout();
  // Ink types its stdout as any writable stream; the one it renders to is a terminal's.
  useEffect(() => redrawOnResize(stdout as NodeJS.WriteStream, () => store.redraw()), [stdout, store]);
  const widgetRows = snapshot.widgets.reduce((n, [, lines]) => n + lines.length, 0);
  // The status line wraps on a narrow terminal: its extra rows come out of the live area.
  const statusExtra = statusLayout(snapshot, useWindowSize().columns).length - 1;
  const reserved =
    8 + statusExtra + widgetRows + snapshot.queued.length + snapshot.editor.text.split("\n").length;
  return h(
    Box,
    { flexDirection: "column" },
    // A new key after a resize prints the whole conversation again at the new width.
    h(Finished, { key: snapshot.epoch, items: snapshot.done }),
    h(Live, { live: snapshot.live, reserved }),
    snapshot.outputPanel ? h(OutputPanel, { tool: snapshot.outputPanel }) : null,
    h(QueuedView, { queued: snapshot.queued }),
    h(Widgets, { widgets: snapshot.widgets }),
    snapshot.dialog
      ? h(DialogView, { dialog: snapshot.dialog })
      : h(InputBox, { editor: snapshot.editor, running: snapshot.running, focused: true }),
    snapshot.dialog
      ? null
      : h(Completions, {
          items: snapshot.completions,
          selected: snapshot.completionIndex,
          kind: snapshot.completionKind,
        }),
    h(StatusLine, { snapshot }),
  );
}
