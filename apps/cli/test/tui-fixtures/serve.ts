// Manual runs: serves the e2e scenario and prints the mock server's base URL.
import { startMockServer } from "@keel/testing";
import { scenario } from "./scenario.js";

const server = await startMockServer();
server.setScenario(scenario);
process.stdout.write(`${server.anthropicBaseUrl}\n`);
