// The print-mode contract's version, apart from the schema itself: every `keel -p` line carries it,
// and only the build and the package's API need the TypeBox schema built.
export const PRINT_SCHEMA_VERSION = 1;
export const PRINT_SCHEMA_ID = "urn:keel:cli:print:1";
