// The packages the core lends the official extensions' bundles (dist/ext-<id>.cjs): one copy of the
// SDK (its Node helpers too), TypeBox and neverthrow per process, as an npm install dedupes them, instead of one in each
// bundle (~1 MB of code and its heap more, measured). The build keeps these names external in the
// extension bundles (scripts/build.mjs reads them from here).
import * as sdk from "@keel/extension-sdk";
import * as sdkNode from "@keel/extension-sdk/node";
import * as typebox from "@sinclair/typebox";
import * as typeboxValue from "@sinclair/typebox/value";
import * as neverthrow from "neverthrow";

export const SHARED_MODULES: Readonly<Record<string, unknown>> = {
  "@keel/extension-sdk": sdk,
  "@keel/extension-sdk/node": sdkNode,
  "@sinclair/typebox": typebox,
  "@sinclair/typebox/value": typeboxValue,
  neverthrow,
};
