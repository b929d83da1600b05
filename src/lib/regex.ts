/**
 * Escapes text for use inside a regular expression (a `$regex` built from user input). The database
 * is given the pattern as a string (`{ $regex: pattern }`), never as a `RegExp`: a `RegExp`'s
 * source writes a line or paragraph separator (U+2028, U+2029) as `\u2028`, which the server's
 * PCRE refuses, and the query fails.
 */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
