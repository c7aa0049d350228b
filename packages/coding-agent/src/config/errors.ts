// The tagged, JSON-safe failures of reading and writing config files.

export interface FieldError {
  /** JSON pointer of the offending value, e.g. `/permissions/allow/2`. */
  path: string;
  message: string;
  /** The line of the file the value is on, when the file's text was at hand. */
  line?: number;
}

export type ConfigError =
  | { type: "config_unreadable"; file: string; message: string }
  | { type: "config_invalid_json"; file: string; line: number; column: number; message: string }
  | { type: "config_invalid"; file: string; errors: FieldError[]; message: string }
  | { type: "config_write_failed"; file: string; message: string };

export interface ConfigDiagnostic {
  level: "warning" | "info";
  file?: string;
  message: string;
}
