// The `timezone` setting's values: `''` (UTC), `UTC`, an IANA zone, or a manual offset.

// The manual offsets WordPress offers next to the cities (`wp_timezone_choice`), written `UTC+5.5`.
const OFFSET_HOURS = [
  -12, -11.5, -11, -10.5, -10, -9.5, -9, -8.5, -8, -7.5, -7, -6.5, -6, -5.5, -5, -4.5, -4, -3.5, -3, -2.5, -2, -1.5, -1, -0.5,
  0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 5.75, 6, 6.5, 7, 7.5, 8, 8.5, 8.75, 9, 9.5, 10, 10.5, 11, 11.5, 12, 12.75,
  13, 13.75, 14,
];
const MANUAL_OFFSETS = new Map(OFFSET_HOURS.map((hours) => [`UTC${hours >= 0 ? '+' : ''}${hours}`, hours]));
const ZONES = new Set(Intl.supportedValuesOf('timeZone'));

/**
 * A name ICU knows only as an alias, such as `Asia/Kolkata` (listed as `Asia/Calcutta`): WordPress
 * offers the current IANA names, so they must be accepted too.
 */
function isZoneAlias(name: string): boolean {
  if (!/^[A-Z][\w+-]*(\/[A-Z0-9][\w+-]*)*$/.test(name)) return false;
  try {
    return ZONES.has(new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone);
  } catch {
    return false;
  }
}

/** `''` (UTC, a fresh install's value), `UTC`, an IANA zone, or one of WordPress's manual offsets. */
export function isValidTimezone(value: string): boolean {
  return value === '' || value === 'UTC' || ZONES.has(value) || MANUAL_OFFSETS.has(value) || isZoneAlias(value);
}

/** A manual offset's hours, or undefined for a named zone. */
export function manualOffset(timezone: string): number | undefined {
  return MANUAL_OFFSETS.get(timezone);
}

/** Hours east of GMT at `at`, rounded to two places as WordPress's `gmt_offset` is for a named zone. */
export function gmtOffsetOf(timezone: string, at: Date): number {
  const manual = manualOffset(timezone);
  if (manual !== undefined) return manual;
  if (timezone === '' || !isValidTimezone(timezone)) return 0;
  const name = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')?.value;
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name ?? '');
  if (!match) return 0;
  const hours = Number(match[2]) + Number(match[3]) / 60;
  return Math.round((match[1] === '-' ? -hours : hours) * 100) / 100;
}
