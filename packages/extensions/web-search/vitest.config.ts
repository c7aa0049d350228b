import { mergeConfig } from "vitest/config";
import shared from "../../../vitest.shared.ts";

// test/setup.ts unsets TAVILY_API_KEY and the proxy variables, so no test inherits a real key
// or a proxy from the developer's shell.
export default mergeConfig(shared, { test: { setupFiles: ["test/setup.ts"] } });
