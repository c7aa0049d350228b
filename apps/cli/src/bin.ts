#!/usr/bin/env node
// keel entry point.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { version } = require("../package.json") as { version: string };
process.stdout.write(`keel ${version}\n`);
