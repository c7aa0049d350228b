// The built-in catalog as plain data. The rows live in src/catalog/, one file per provider, each
// with the pages and the day its facts were checked; a figure that turns out wrong is fixed there.
export { BUILTIN_MODELS, BUILTIN_PROVIDERS } from "./catalog/index.js";
