// Characters per token for estimates, from the model's tokenizer family in the catalog.

/** What an estimate assumes for a model whose tokenizer the catalog does not name. */
export const DEFAULT_CHARS_PER_TOKEN = 4;

export function charsPerToken(model: { tokenizer?: { charsPerToken: number } } | undefined): number {
  const ratio = model?.tokenizer?.charsPerToken;
  return ratio !== undefined && ratio > 0 ? ratio : DEFAULT_CHARS_PER_TOKEN;
}
