import { describe, expect, it } from 'vitest';
import { formatRestDate, formatSiteDate, parseRestDate, parseRestDateGmt } from './site-dates.js';

const at = (iso: string) => new Date(iso);
const gmt = (date: Date | null) => date?.toISOString() ?? null;

describe('formatRestDate', () => {
  it('prints the GMT fields without offset or fraction', () => {
    expect(formatRestDate(at('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05');
  });

  it('prints null for no date', () => {
    expect(formatRestDate(null)).toBeNull();
    expect(formatRestDate(new Date(Number.NaN))).toBeNull();
  });
});

describe('formatSiteDate', () => {
  it('reads Europe/Paris in winter (UTC+1) and in summer (UTC+2)', () => {
    expect(formatSiteDate(at('2026-01-15T10:00:00Z'), 'Europe/Paris')).toBe('2026-01-15T11:00:00');
    expect(formatSiteDate(at('2026-07-01T10:00:00Z'), 'Europe/Paris')).toBe('2026-07-01T12:00:00');
  });

  it('jumps from 01:59:59 to 03:00:00 when Paris clocks go forward', () => {
    expect(formatSiteDate(at('2026-03-29T00:59:59Z'), 'Europe/Paris')).toBe('2026-03-29T01:59:59');
    expect(formatSiteDate(at('2026-03-29T01:00:00Z'), 'Europe/Paris')).toBe('2026-03-29T03:00:00');
  });

  it('reads 02:30 twice when Paris clocks go back', () => {
    expect(formatSiteDate(at('2026-10-25T00:30:00Z'), 'Europe/Paris')).toBe('2026-10-25T02:30:00');
    expect(formatSiteDate(at('2026-10-25T01:30:00Z'), 'Europe/Paris')).toBe('2026-10-25T02:30:00');
  });

  it("keeps a zone's local mean time to the second", () => {
    expect(formatSiteDate(at('1890-01-01T00:00:00Z'), 'Europe/Paris')).toBe('1890-01-01T00:09:21');
  });

  it('applies WordPress manual offsets, fractional hours included', () => {
    const instant = at('2026-01-15T10:00:00Z');
    expect(formatSiteDate(instant, 'UTC+5.5')).toBe('2026-01-15T15:30:00');
    expect(formatSiteDate(instant, 'UTC-9.5')).toBe('2026-01-15T00:30:00');
    expect(formatSiteDate(instant, 'UTC+12.75')).toBe('2026-01-15T22:45:00');
    expect(formatSiteDate(instant, 'UTC+0')).toBe('2026-01-15T10:00:00');
  });

  it('treats UTC, an empty timezone and an unknown name as GMT', () => {
    const instant = at('2026-07-01T10:00:00Z');
    expect(formatSiteDate(instant, 'UTC')).toBe('2026-07-01T10:00:00');
    expect(formatSiteDate(instant, '')).toBe('2026-07-01T10:00:00');
    expect(formatSiteDate(instant, 'Mars/Olympus_Mons')).toBe('2026-07-01T10:00:00');
  });

  it('prints null for no date', () => {
    expect(formatSiteDate(null, 'Europe/Paris')).toBeNull();
  });
});

describe('parseRestDate', () => {
  it('reads a value without offset as Paris wall-clock time, summer and winter', () => {
    expect(gmt(parseRestDate('2026-07-01T12:00:00', 'Europe/Paris'))).toBe('2026-07-01T10:00:00.000Z');
    expect(gmt(parseRestDate('2026-01-15T11:00:00', 'Europe/Paris'))).toBe('2026-01-15T10:00:00.000Z');
  });

  it('moves a time in the skipped hour forward, as PHP does (02:30 becomes 03:30 summer time)', () => {
    const instant = parseRestDate('2026-03-29T02:30:00', 'Europe/Paris');
    expect(gmt(instant)).toBe('2026-03-29T01:30:00.000Z');
    expect(formatSiteDate(instant, 'Europe/Paris')).toBe('2026-03-29T03:30:00');
  });

  it('takes the first of two identical wall-clock times when clocks go back', () => {
    expect(gmt(parseRestDate('2026-10-25T02:30:00', 'Europe/Paris'))).toBe('2026-10-25T00:30:00.000Z');
    expect(gmt(parseRestDate('2026-10-25T03:30:00', 'Europe/Paris'))).toBe('2026-10-25T02:30:00.000Z');
  });

  it('reads manual offsets', () => {
    expect(gmt(parseRestDate('2026-01-15T15:30:00', 'UTC+5.5'))).toBe('2026-01-15T10:00:00.000Z');
    expect(gmt(parseRestDate('2026-01-15 10:00:00', 'UTC-9.5'))).toBe('2026-01-15T19:30:00.000Z');
  });

  it('honours an explicit offset whatever the site timezone', () => {
    expect(gmt(parseRestDate('2026-01-02T03:04:05+02:00', 'Europe/Paris'))).toBe('2026-01-02T01:04:05.000Z');
    expect(gmt(parseRestDate('2026-01-02T03:04:05-05', 'Europe/Paris'))).toBe('2026-01-02T08:04:05.000Z');
    expect(gmt(parseRestDate('2026-01-02T03:04:05Z', 'Europe/Paris'))).toBe('2026-01-02T03:04:05.000Z');
  });

  it('accepts a space or a lower-case t, and drops fractional seconds', () => {
    expect(gmt(parseRestDate('2026-01-02 03:04:05', 'UTC'))).toBe('2026-01-02T03:04:05.000Z');
    expect(gmt(parseRestDate('2026-01-02t03:04:05', 'UTC'))).toBe('2026-01-02T03:04:05.000Z');
    expect(gmt(parseRestDate('2026-01-02T03:04:05.999Z', 'UTC'))).toBe('2026-01-02T03:04:05.000Z');
  });

  it('round-trips with formatSiteDate', () => {
    const local = '2026-05-17T08:45:12';
    expect(formatSiteDate(parseRestDate(local, 'America/New_York'), 'America/New_York')).toBe(local);
  });

  it.each([
    'nope',
    '',
    '2026-01-02',
    '2026-13-01T00:00:00',
    '2026-02-30T00:00:00',
    '2026-01-02T24:00:00',
    '2026-01-02T10:60:00',
    '2026-01-02T03:04:05z',
    '2026-01-02T03:04:05+0200',
    '2026-01-02T03:04:05+24:00',
    ' 2026-01-02T03:04:05',
  ])('gives null for %j', (input) => {
    expect(parseRestDate(input, 'Europe/Paris')).toBeNull();
  });
});

describe('parseRestDateGmt', () => {
  it('reads a value without offset as GMT', () => {
    expect(gmt(parseRestDateGmt('2026-07-01T12:00:00'))).toBe('2026-07-01T12:00:00.000Z');
  });

  it('honours an explicit offset', () => {
    expect(gmt(parseRestDateGmt('2026-07-01T12:00:00+05:30'))).toBe('2026-07-01T06:30:00.000Z');
  });

  it('gives null for an invalid value', () => {
    expect(parseRestDateGmt('2026-02-29T00:00:00')).toBeNull();
  });
});
