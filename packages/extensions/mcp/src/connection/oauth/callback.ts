// The loopback listener the browser is sent back to after authorization (RFC 8252): one GET on
// /callback with `code` and `state`, checked against the state Keel sent, then it closes.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { err, ok, type Result } from "neverthrow";

export type CallbackFailure =
  | { type: "port_in_use"; message: string }
  | { type: "denied"; message: string }
  | { type: "timeout"; message: string }
  | { type: "cancelled"; message: string };

export interface CallbackListener {
  port: number;
  /** Resolves with the authorization code of the first valid callback. */
  code: Promise<Result<string, CallbackFailure>>;
  close(): void;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A free loopback port, found by binding port 0 and letting it go. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export function listenForCallback(options: {
  port: number;
  state: string;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<Result<CallbackListener, CallbackFailure>> {
  return new Promise((resolveListener) => {
    let settle: (result: Result<string, CallbackFailure>) => void = () => {};
    const code = new Promise<Result<string, CallbackFailure>>((resolve) => {
      settle = resolve;
    });
    let server: Server | undefined;
    const finish = (result: Result<string, CallbackFailure>) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      settle(result);
      server?.close();
      server?.closeAllConnections();
    };
    const onAbort = () => finish(err({ type: "cancelled", message: "the authorization was cancelled" }));
    const timer = setTimeout(
      () =>
        finish(
          err({
            type: "timeout",
            message: `no answer from the browser in ${Math.round(options.timeoutMs / 1000)} s`,
          }),
        ),
      options.timeoutMs,
    );
    timer.unref();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== "/callback") {
        response.writeHead(404).end();
        return;
      }
      // Another page on the machine could call this URL: only the state Keel sent counts.
      if (url.searchParams.get("state") !== options.state) {
        response
          .writeHead(400, { "content-type": "text/html" })
          .end(PAGE("Not this request", "The state did not match."));
        return;
      }
      const error = url.searchParams.get("error");
      const got = url.searchParams.get("code");
      if (error || !got) {
        const why = url.searchParams.get("error_description") ?? error ?? "no code";
        response
          .writeHead(200, { "content-type": "text/html" })
          .end(PAGE("Authorization failed", escapeHtml(why)));
        finish(err({ type: "denied", message: `the authorization server said: ${why}` }));
        return;
      }
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(PAGE("Keel is authorized", "You can close this tab and go back to Keel."));
      finish(ok(got));
    });
    server.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolveListener(
        err({
          type: "port_in_use",
          message: `cannot listen on 127.0.0.1:${options.port} for the OAuth redirect (${error.code ?? error.message})`,
        }),
      );
    });
    server.listen(options.port, "127.0.0.1", () => {
      const { port } = server!.address() as AddressInfo;
      resolveListener(ok({ port, code, close: () => finish(err({ type: "cancelled", message: "closed" })) }));
    });
  });
}
