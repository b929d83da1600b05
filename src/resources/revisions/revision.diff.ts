import { type RevisionDoc } from './revision.model.js';
import { diffText, type FieldDiff } from '../../lib/text-diff.js';
import { type RevisionedType } from './revisioned-type.js';

export { MAX_DIFF_EDITS, type FieldDiff } from '../../lib/text-diff.js';

export interface RevisionDiff {
  from: number | null;
  to: number;
  fields: Record<string, FieldDiff>;
}

/** How `to` differs from `from` (null: from nothing, as for the oldest revision) in each of the type's revisioned fields. */
export function diffRevisions(type: RevisionedType, from: RevisionDoc | null, to: RevisionDoc): RevisionDiff {
  const fields = Object.fromEntries(type.diffFields.map((field) => [field, diffText(from ? type.fieldText(from, field) : '', type.fieldText(to, field))]));
  return { from: from?._id ?? null, to: to._id, fields };
}
