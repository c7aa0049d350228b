// Everything the screen shows, in one observable store. Streaming deltas are coalesced into at most
// one published snapshot per frame; keystrokes and finished items publish at once.
import type { ImageContent } from "@keel/ai";
import type { ApprovalAnswer, ToolApprovalRequest } from "@keel/coding-agent";
import type { CommandChoice } from "./completion.js";
import { type EditorState, emptyEditor, emptyHistory, type History } from "./editor.js";
import {
  type Change,
  type Item,
  type LiveView,
  type NoticeLevel,
  type ToolItem,
  Transcript,
} from "./transcript.js";

export interface PickOption {
  label: string;
  detail?: string;
}

/** A question on screen; the first of the queue has the keyboard. `id` survives selection moves. */
export type Dialog = { id: number } & DialogBody;

export type DialogBody =
  | {
      kind: "approval";
      request: ToolApprovalRequest;
      selected: number;
      /** First line of the preview shown (a long diff scrolls). */
      scroll: number;
      /** Set while the user types what keel should do instead (deny with a reason). */
      reason?: EditorState;
      answer: (a: ApprovalAnswer) => void;
    }
  | {
      kind: "confirm";
      title: string;
      message?: string;
      selected: number;
      answer: (yes: boolean | undefined) => void;
    }
  | {
      kind: "select";
      title: string;
      options: PickOption[];
      /** An index of `options` (whatever the filter shows). */
      selected: number;
      /** What the user typed to narrow the list (pick-filter.ts). */
      filter: string;
      answer: (index: number | undefined) => void;
    }
  | {
      kind: "input";
      title: string;
      placeholder?: string;
      editor: EditorState;
      answer: (text: string | undefined) => void;
    };

export interface StatusInfo {
  model: string;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  contextPercent: number | undefined;
  /** The permission mode. */
  mode: string;
  /** What the model gets for thinking ("high", "off", "on"); "" for a model that does not reason. */
  thinking: string;
}

/** An image pasted into the prompt, shown there as its `[Image #n]` marker until it is sent. */
export interface PastedImage {
  marker: string;
  image: ImageContent;
}

export interface Queued {
  kind: "steer" | "followUp";
  text: string;
}

export interface Snapshot {
  done: Item[];
  live: LiveView;
  running: boolean;
  status: StatusInfo;
  statuses: [string, string][];
  widgets: [string, string[]][];
  dialog: Dialog | undefined;
  editor: EditorState;
  completions: CommandChoice[];
  completionIndex: number;
  completionKind: "command" | "file";
  queued: Queued[];
  outputPanel: ToolItem | undefined;
  hint: string | undefined;
  /** Bumped when the screen is redrawn from scratch (after a resize): the transcript prints again. */
  epoch: number;
}

/** ~40 fps: smooth streaming, bounded work per second. */
const FRAME_MS = 25;

export class UiStore {
  transcript = new Transcript();
  /** --debug: debug-log lines appear in the transcript. */
  showDebug = false;
  running = false;
  status: StatusInfo = {
    model: "",
    tokensIn: 0,
    tokensOut: 0,
    cost: 0,
    contextPercent: undefined,
    mode: "default",
    thinking: "",
  };
  readonly statuses = new Map<string, string>();
  readonly widgets = new Map<string, string[]>();
  dialogs: Dialog[] = [];
  editor: EditorState = emptyEditor;
  history: History = emptyHistory;
  completions: CommandChoice[] = [];
  completionIndex = 0;
  /** What the menu under the prompt completes: a /command or an @file. */
  completionKind: "command" | "file" = "command";
  queued: Queued[] = [];
  outputExpanded = false;
  hint: string | undefined;
  epoch = 0;
  images: PastedImage[] = [];

  private nextDialog = 1;
  private snapshot: Snapshot;
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    this.snapshot = this.build();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): Snapshot => this.snapshot;

  private build(): Snapshot {
    return {
      done: this.transcript.done,
      live: this.transcript.live(),
      running: this.running,
      status: { ...this.status },
      statuses: [...this.statuses],
      widgets: [...this.widgets],
      dialog: this.dialogs[0],
      editor: this.editor,
      completions: this.completions,
      completionIndex: this.completionIndex,
      completionKind: this.completionKind,
      queued: this.queued,
      outputPanel: this.outputExpanded ? this.transcript.lastTool : undefined,
      hint: this.hint,
      epoch: this.epoch,
    };
  }

  /** Publishes now (structural changes, keys). */
  publish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.snapshot = this.build();
    for (const listener of [...this.listeners]) listener();
  }

  /** Publishes at the next frame at the latest (streaming deltas). */
  schedule(): void {
    this.timer ??= setTimeout(() => this.publish(), FRAME_MS);
  }

  changed(change: Change): void {
    if (change === "structural") this.publish();
    else if (change === "delta") this.schedule();
  }

  /** The screen was cleared: print the conversation again (a new Static) and redraw. */
  redraw(): void {
    this.epoch++;
    this.publish();
  }

  note(level: NoticeLevel, text: string): void {
    this.transcript.note(level, text);
    this.publish();
  }

  /**
   * Shows a dialog (queued behind an open one) and resolves with its answer; `signal` withdraws
   * it (closed, answered with undefined) when what asked is no longer waiting.
   */
  ask<T>(make: (answer: (value: T) => void) => DialogBody, signal?: AbortSignal): Promise<T> {
    const id = this.nextDialog++;
    return new Promise<T>((resolve) => {
      let settled = false;
      const withdraw = () => answer(undefined as T);
      const answer = (value: T) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", withdraw);
        this.dialogs = this.dialogs.filter((d) => d.id !== id);
        this.publish();
        resolve(value);
      };
      if (signal?.aborted) {
        settled = true;
        resolve(undefined as T);
        return;
      }
      signal?.addEventListener("abort", withdraw, { once: true });
      const body = make(answer);
      this.dialogs = [...this.dialogs, { id, ...body } as Dialog];
      this.publish();
    });
  }

  /** Replaces the open dialog (selection moves, typing in an input dialog). */
  updateDialog(next: Dialog): void {
    this.dialogs = [next, ...this.dialogs.slice(1)];
    this.publish();
  }

  /** Answers open approvals with "deny" (the run is over) and, unless only approvals, cancels the rest. */
  dismissDialogs(which: "all" | "approvals" = "all"): void {
    for (const d of [...this.dialogs]) {
      if (d.kind === "approval") d.answer({ decision: "deny", stopRun: true });
      else if (which === "all") d.answer(undefined as never);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
