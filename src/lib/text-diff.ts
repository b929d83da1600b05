import { structuredPatch, type StructuredPatchHunk } from 'diff';

/** How one text field differs between two states: unified-diff hunks, as revision diffs and the change feed show them. */
export interface FieldDiff {
  changed: boolean;
  hunks: StructuredPatchHunk[];
  /** Present, and false, when the texts differ in too many places to compare (see MAX_DIFF_EDITS). */
  minimal?: false;
}

/**
 * How far a line diff may go (jsdiff's `maxEditLength` and `timeout`): Myers's algorithm costs
 * lines x edits, so two long texts that differ throughout kept a process busy for seconds. Past
 * either bound the field is answered as one hunk that removes every line and adds every line,
 * marked `minimal: false`: a true patch, only not the smallest.
 */
export const MAX_DIFF_EDITS = 1000;
const MAX_DIFF_MS = 20;

/**
 * Line-by-line differences of a text, as unified-diff hunks with three lines of context.
 * jsdiff's "\ No newline at end of file" markers are left out: the texts are fields, not files.
 */
export function diffText(before: string, after: string): FieldDiff {
  if (before === after) return { changed: false, hunks: [] };
  const patch = structuredPatch('before', 'after', before, after, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS, timeout: MAX_DIFF_MS });
  if (!patch) return { changed: true, hunks: [replaceAll(before, after)], minimal: false };
  return {
    changed: true,
    hunks: patch.hunks.map((hunk) => ({ ...hunk, lines: hunk.lines.filter((line) => !line.startsWith('\\')) })),
  };
}

/** The hunk that turns `before` into `after` line by line without comparing them: every line removed, every line added. */
function replaceAll(before: string, after: string): StructuredPatchHunk {
  const lines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const removed = lines(before);
  const added = lines(after);
  return {
    oldStart: 1,
    oldLines: removed.length,
    newStart: 1,
    newLines: added.length,
    lines: [...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`)],
  };
}
