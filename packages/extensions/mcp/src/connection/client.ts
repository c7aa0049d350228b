// One SDK Client per connection attempt, with the client features Keel offers: roots (always),
// elicitation in form and URL mode (always; the handler declines where no one can answer) and
// sampling (only for servers the user allowed it). Server requests reach the handlers given.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitationCompleteNotificationSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  type Root,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

/** What Keel answers to the requests a server sends; each gets the server's abort signal. */
export interface ClientFeatureHandlers {
  roots(): Root[] | Promise<Root[]>;
  elicit(params: ElicitRequest["params"], signal: AbortSignal): Promise<ElicitResult>;
  /** Only called for servers whose spec enables sampling (the capability is not offered otherwise). */
  sample?(params: CreateMessageRequest["params"], signal: AbortSignal): Promise<CreateMessageResult>;
}

export interface ServerNotifications {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  elicitationComplete(elicitationId: string): void;
  log(level: string, data: unknown, logger?: string): void;
}

/**
 * Structured results are validated by Keel's result code (against every page of tools, with the
 * result kept), so the SDK's own check is switched off by a validator that always passes.
 */
const passThrough: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

export function createClient(
  info: { name: string; version: string },
  handlers: ClientFeatureHandlers,
  notifications: ServerNotifications,
  options: { sampling: boolean },
): Client {
  const client = new Client(info, {
    capabilities: {
      roots: { listChanged: true },
      elicitation: { form: { applyDefaults: true }, url: {} },
      ...(options.sampling && handlers.sample ? { sampling: {} } : {}),
    },
    jsonSchemaValidator: passThrough,
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: await handlers.roots() }));
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    handlers.elicit(request.params, extra.signal),
  );
  if (options.sampling && handlers.sample) {
    const sample = handlers.sample;
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      sample(request.params, extra.signal),
    );
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => notifications.toolsChanged());
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => notifications.promptsChanged());
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
    notifications.resourcesChanged(),
  );
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) =>
    notifications.elicitationComplete(notification.params.elicitationId),
  );
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) =>
    notifications.log(notification.params.level, notification.params.data, notification.params.logger),
  );
  return client;
}
