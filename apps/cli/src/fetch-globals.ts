// Injected by the build (scripts/build.mjs) into dist/keel.cjs for the bare names Headers, Response
// and FormData, so the provider SDKs bundled there build their requests without loading Node's
// undici (~10-15 ms and ~3 MB before a start's first request; see @keel/ai's fetch-types). Only
// the bundle's own code sees these: globalThis keeps Node's for extensions and everything else.
export { FetchFormData as FormData, FetchHeaders as Headers, FetchResponse as Response } from "@keel/ai";
