/** Escapes text for use inside a regular expression (a `$regex` built from user input). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
