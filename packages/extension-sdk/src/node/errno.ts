// What a failed file-system call said, as the JSON-safe fields the node helpers' errors carry.

/** The errno code (when the system gave one) and the message of a thrown fs error. */
export function errnoFields(error: unknown): { code?: string; message: string } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return {
    ...(typeof code === "string" ? { code } : {}),
    message: error instanceof Error ? error.message : String(error),
  };
}
