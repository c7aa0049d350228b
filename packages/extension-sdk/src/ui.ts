// What an extension may show or ask. Every method works on every host: hosts without a terminal
// answer "unsupported" at once instead of hanging, and `supports` says so up front.

export type UiAnswer<T> = { status: "ok"; value: T } | { status: "cancelled" } | { status: "unsupported" };

export interface UiSupport {
  status: boolean;
  widget: boolean;
  notify: boolean;
  confirm: boolean;
  select: boolean;
  input: boolean;
}

export type NotifyLevel = "info" | "warning" | "error";

/** How a question is asked. */
export interface AskOptions {
  /**
   * Withdraws the question when it aborts (what it was for was cancelled): the host closes it and
   * answers `cancelled`.
   */
  signal?: AbortSignal;
}

export interface ExtensionUI {
  readonly supports: UiSupport;
  /** A short status-line item keyed by `key`; `undefined` removes it. */
  setStatus(key: string, text: string | undefined): void;
  /** A block of lines shown above the input (e.g. a checklist); `undefined` removes it. */
  setWidget(key: string, lines: string[] | undefined): void;
  notify(message: string, level?: NotifyLevel): void;
  confirm(title: string, message?: string, ask?: AskOptions): Promise<UiAnswer<boolean>>;
  select(title: string, options: string[], ask?: AskOptions): Promise<UiAnswer<string>>;
  input(title: string, placeholder?: string, ask?: AskOptions): Promise<UiAnswer<string>>;
}

/** A UI for hosts with no user attached: displays are dropped, questions answer "unsupported". */
export function headlessUI(): ExtensionUI {
  const unsupported = async () => ({ status: "unsupported" }) as const;
  return {
    supports: { status: false, widget: false, notify: false, confirm: false, select: false, input: false },
    setStatus: () => {},
    setWidget: () => {},
    notify: () => {},
    confirm: unsupported,
    select: unsupported,
    input: unsupported,
  };
}
