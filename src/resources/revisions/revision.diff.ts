import { structuredPatch, type StructuredPatchHunk } from 'diff';
import { type RevisionDoc } from '../posts/post.model.js';
import { type RevisionedType } from './revisioned-type.js';

export interface FieldDiff {
  changed: boolean;
  hunks: StructuredPatchHunk[];
}

export interface RevisionDiff {
  from: number | null;
  to: number;
  fields: Record<string, FieldDiff>;
}

/**
 * Line-by-line differences of a text, as unified-diff hunks with three lines of context.
 * jsdiff's "\ No newline at end of file" markers are left out: the texts are fields, not files.
 */
function diffText(before: string, after: string): FieldDiff {
  if (before === after) return { changed: false, hunks: [] };
  const { hunks } = structuredPatch('before', 'after', before, after, undefined, undefined, { context: 3 });
  return {
    changed: true,
    hunks: hunks.map((hunk) => ({ ...hunk, lines: hunk.lines.filter((line) => !line.startsWith('\\')) })),
  };
}

/** How `to` differs from `from` (null: from nothing, as for the oldest revision) in each of the type's revisioned fields. */
export function diffRevisions(type: RevisionedType, from: RevisionDoc | null, to: RevisionDoc): RevisionDiff {
  const fields = Object.fromEntries(type.diffFields.map((field) => [field, diffText(from ? type.fieldText(from, field) : '', type.fieldText(to, field))]));
  return { from: from?._id ?? null, to: to._id, fields };
}
