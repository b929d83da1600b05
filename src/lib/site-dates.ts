import { isValidTimezone, manualOffset } from './timezones.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * WordPress's `rest_parse_date` pattern: RFC 3339 with `T`, `t` or a space between date and time,
 * optional fractional seconds, and an optional `Z` or `±HH[:MM]` offset.
 */
export const REST_DATE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:(Z)|([+-])(\d{2})(?::(\d{2}))?)?$/;

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(timezone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zoneFormats.set(timezone, format);
  }
  return format;
}

/** Milliseconds since the epoch of a date and time read as GMT; years below 100 stay as written. */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/**
 * Milliseconds to add to a GMT instant to read the site's wall clock at that instant. Named zones are
 * read from ICU to the second (not `gmtOffsetOf`, which rounds to hundredths of an hour), as PHP's
 * DateTime does for WordPress.
 */
function offsetAt(instantMs: number, timezone: string): number {
  const manual = manualOffset(timezone);
  if (manual !== undefined) return manual * HOUR_MS;
  if (timezone === '' || timezone === 'UTC' || !isValidTimezone(timezone)) return 0;
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const part of zoneFormat(timezone).formatToParts(instantMs)) parts[part.type] = Number(part.value);
  const wallClock = utcMs(
    parts.year ?? 1970,
    parts.month ?? 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wallClock - (instantMs - (((instantMs % 1000) + 1000) % 1000));
}

/**
 * The instant at which the site's clock reads `wallClockMs` (wall-clock fields stored as if GMT).
 * Mirrors PHP's DateTime, which WordPress's `get_gmt_from_date` uses: a time that occurs twice when
 * clocks go back takes the first occurrence, and a time skipped when clocks go forward is read with
 * the offset in force before the change (02:30 in a skipped hour becomes 03:30 summer time).
 */
function instantOfWallClock(wallClockMs: number, timezone: string): number {
  const before = offsetAt(wallClockMs - DAY_MS, timezone);
  const after = offsetAt(wallClockMs + DAY_MS, timezone);
  const matches = [...new Set([before, after])]
    .map((offset) => wallClockMs - offset)
    .filter((instant) => instant + offsetAt(instant, timezone) === wallClockMs);
  return matches.length > 0 ? Math.min(...matches) : wallClockMs - before;
}

function isValidDate(date: Date | null): date is Date {
  return date !== null && !Number.isNaN(date.getTime());
}

function formatFields(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** `YYYY-MM-DDTHH:MM:SS` of the instant in GMT, as WordPress prints `date_gmt` and `modified_gmt`. */
export function formatRestDate(date: Date | null): string | null {
  return isValidDate(date) ? formatFields(date.getTime()) : null;
}

/**
 * `YYYY-MM-DDTHH:MM:SS` of the instant on the site's clock, as WordPress prints `date` and `modified`.
 * `timezone` is the `timezone` setting: an IANA name, `UTC`, `''` (UTC) or a manual offset (`UTC+5.5`).
 */
export function formatSiteDate(date: Date | null, timezone: string): string | null {
  return isValidDate(date) ? formatFields(date.getTime() + offsetAt(date.getTime(), timezone)) : null;
}

function parseDate(input: string, timezone: string): Date | null {
  const match = REST_DATE.exec(input);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  // Unlike PHP's strtotime, which rolls 2026-02-30 over to March 2, impossible dates are rejected.
  const wallClock = utcMs(year, month, day, hour, minute, second);
  const fields = new Date(wallClock);
  if (
    fields.getUTCFullYear() !== year ||
    fields.getUTCMonth() !== month - 1 ||
    fields.getUTCDate() !== day ||
    fields.getUTCHours() !== hour ||
    fields.getUTCMinutes() !== minute ||
    fields.getUTCSeconds() !== second
  ) {
    return null;
  }
  // Fractional seconds are dropped: WordPress stores whole seconds.
  if (match[7] === 'Z') return new Date(wallClock);
  if (match[8] !== undefined) {
    const offsetHours = Number(match[9]);
    const offsetMinutes = Number(match[10] ?? '0');
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    const sign = match[8] === '-' ? -1 : 1;
    return new Date(wallClock - sign * (offsetHours * HOUR_MS + offsetMinutes * 60_000));
  }
  return new Date(instantOfWallClock(wallClock, timezone));
}

/**
 * A `date` (or `modified`) request value as an instant. Without an offset the value is the site's
 * wall-clock time (WordPress's `rest_get_date_with_gmt`); with one, the offset is honoured.
 * Invalid values give null.
 */
export function parseRestDate(input: string, timezone: string): Date | null {
  return parseDate(input, timezone);
}

/** A `date_gmt` request value as an instant: without an offset it is GMT. Invalid values give null. */
export function parseRestDateGmt(input: string): Date | null {
  return parseDate(input, 'UTC');
}
