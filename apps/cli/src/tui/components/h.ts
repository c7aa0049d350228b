// createElement under a short name: the TUI is written without JSX so it builds with the
// package's plain TypeScript settings.
import { createElement } from "react";

export const h = createElement;
