// Waits on a connection's own events (never on sleeps): the next event of a kind, or a status.
import type { ConnectionEvent, ConnectionStatus, McpConnection } from "../../src/connection/index.js";

export function nextEvent<T extends ConnectionEvent["type"]>(
  connection: McpConnection,
  type: T,
  timeoutMs = 15_000,
): Promise<Extract<ConnectionEvent, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(
        new Error(`no ${type} event within ${timeoutMs} ms; status ${JSON.stringify(connection.status())}`),
      );
    }, timeoutMs);
    const off = connection.on((event) => {
      if (event.type !== type) return;
      clearTimeout(timer);
      off();
      resolve(event as Extract<ConnectionEvent, { type: T }>);
    });
  });
}

export function statusReaches(
  connection: McpConnection,
  predicate: (status: ConnectionStatus) => boolean,
  timeoutMs = 15_000,
): Promise<ConnectionStatus> {
  if (predicate(connection.status())) return Promise.resolve(connection.status());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(
        new Error(`status did not arrive within ${timeoutMs} ms; now ${JSON.stringify(connection.status())}`),
      );
    }, timeoutMs);
    const off = connection.on((event) => {
      if (event.type !== "status" || !predicate(event.status)) return;
      clearTimeout(timer);
      off();
      resolve(event.status);
    });
  });
}
