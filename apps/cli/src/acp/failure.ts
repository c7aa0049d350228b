// A request Keel refuses, as JSON-RPC wants it said (code, message, data). The session code lives in
// the core bundle, which carries no copy of the ACP SDK: the protocol front turns these into the
// SDK's RequestError. The two bundles do not share classes, so it is recognised by its shape.
export class AcpFailure {
  readonly kind = "acp_failure";

  private constructor(
    readonly code: number,
    readonly message: string,
    readonly data?: unknown,
  ) {}

  static invalidRequest(message: string, data?: unknown): AcpFailure {
    return new AcpFailure(-32600, message, data);
  }

  static invalidParams(message: string, data?: unknown): AcpFailure {
    return new AcpFailure(-32602, message, data);
  }

  static internal(message: string, data?: unknown): AcpFailure {
    return new AcpFailure(-32603, message, data);
  }

  /** ACP's "resource not found" (an unknown session). */
  static notFound(message: string): AcpFailure {
    return new AcpFailure(-32002, message);
  }
}

export function isAcpFailure(value: unknown): value is Pick<AcpFailure, "code" | "message" | "data"> {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === "acp_failure" &&
    typeof (value as { code?: unknown }).code === "number"
  );
}
