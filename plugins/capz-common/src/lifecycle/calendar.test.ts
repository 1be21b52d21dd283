import {
  AKS_RELEASE_CALENDAR,
  aksCalendarWith,
  aksLifecycleSettings,
} from './calendar';
import { aksVersionSupport } from './support';

describe("aksCalendarWith: the operator's calendar laid over the shipped one", () => {
  it('replaces a shipped minor and adds a new one, in version order', () => {
    const { calendar, errors } = aksCalendarWith([
      { minor: '1.38', ga: '2027-02', endOfLife: '2028-02-29' },
      { minor: '1.34', ga: '2025-11', endOfLife: '2027-01-31' },
    ]);
    expect(errors).toEqual([]);
    expect(calendar.map(c => c.minor)).toEqual([
      ...AKS_RELEASE_CALENDAR.map(c => c.minor),
      '1.38',
    ]);
    // The replaced entry has no LTS date: the configured entry is taken whole, not merged field by field.
    expect(calendar.find(c => c.minor === '1.34')).toEqual({
      minor: '1.34',
      ga: '2025-11',
      endOfLife: '2027-01-31',
    });
    // The shipped table itself is untouched.
    expect(AKS_RELEASE_CALENDAR.find(c => c.minor === '1.34')?.endOfLife).toBe(
      '2026-11-30',
    );
    // What a page and a notice then say: 1.34 is supported two months longer; 1.38 is known.
    expect(
      aksVersionSupport('1.34.2', { today: '2026-12-04', calendar }),
    ).toMatchObject({ status: 'community', until: '2027-01-31', daysLeft: 58 });
    expect(aksVersionSupport('1.34.2', { today: '2026-12-04' }).status).toBe(
      'platform',
    );
    expect(
      aksVersionSupport('1.38.0', { today: '2027-03-01', calendar }).status,
    ).toBe('community');
    // 1.34's platform support ends when 1.38 (N+4) reaches GA: dated now that 1.38 is in the calendar.
    expect(
      aksVersionSupport('1.34.2', { today: '2027-03-01', calendar }),
    ).toMatchObject({ status: 'out-of-support' });
  });

  it('leaves out an entry that is not a calendar entry and says why, in the config words', () => {
    const { calendar, errors } = aksCalendarWith([
      { minor: 'v1.38', ga: '2027-2', endOfLife: '2028-02-30' },
      { minor: '1.39', ga: '2027-06', endOfLife: '2027-05-31' },
      {
        minor: '1.40',
        ga: '2027-10',
        endOfLife: '2028-10-31',
        ltsEndOfLife: '2028-01-31',
      },
      {
        minor: '1.41',
        ga: '2028-02',
        endOfLife: '2029-02-28',
        ltsEndOfLife: '2030-02-28',
      },
    ]);
    expect(errors).toEqual([
      'capz.lifecycle.calendar[0] (v1.38): minor must be a Kubernetes minor version such as "1.38" (got "v1.38"); ga must be the month AKS made it generally available, "YYYY-MM" (got "2027-2"); endOfLife must be the last day of community support, "YYYY-MM-DD" (got "2028-02-30").',
      'capz.lifecycle.calendar[1] (1.39): endOfLife 2027-05-31 is before its GA month 2027-06.',
      'capz.lifecycle.calendar[2] (1.40): ltsEndOfLife 2028-01-31 is before its community end of life 2028-10-31.',
    ]);
    expect(calendar.map(c => c.minor)).toEqual([
      ...AKS_RELEASE_CALENDAR.map(c => c.minor),
      '1.41',
    ]);
  });

  it('with no entries is the shipped calendar', () => {
    expect(aksCalendarWith([])).toEqual({
      calendar: [...AKS_RELEASE_CALENDAR],
      errors: [],
    });
  });
});

describe('aksLifecycleSettings: capz.lifecycle as the pages and the backend read it', () => {
  const configOf = (lifecycle: unknown) => {
    const values: Record<string, unknown> = {
      'capz.lifecycle.soonDays': (lifecycle as any)?.soonDays,
      'capz.lifecycle.calendar': (lifecycle as any)?.calendar,
    };
    return {
      getOptional: (k: string) => values[k],
      getOptionalNumber: (k: string) => values[k] as number | undefined,
    };
  };

  it('defaults: 60 days and the shipped calendar', () => {
    expect(aksLifecycleSettings(configOf(undefined))).toEqual({
      soonDays: 60,
      calendar: [...AKS_RELEASE_CALENDAR],
      errors: [],
    });
  });

  it('reads both keys; an entry that is not an object is said, not taken', () => {
    const s = aksLifecycleSettings(
      configOf({
        soonDays: 90,
        calendar: [
          { minor: '1.38', ga: '2027-02', endOfLife: '2028-02-29' },
          'x',
        ],
      }),
    );
    expect(s.soonDays).toBe(90);
    expect(s.calendar.at(-1)?.minor).toBe('1.38');
    expect(s.errors).toEqual([
      'capz.lifecycle.calendar[1]: minor must be a Kubernetes minor version such as "1.38" (got undefined); ga must be the month AKS made it generally available, "YYYY-MM" (got undefined); endOfLife must be the last day of community support, "YYYY-MM-DD" (got undefined).',
    ]);
    expect(aksLifecycleSettings(configOf({ calendar: 'x' })).errors).toEqual([
      'capz.lifecycle.calendar must be a list of calendar entries.',
    ]);
  });
});
