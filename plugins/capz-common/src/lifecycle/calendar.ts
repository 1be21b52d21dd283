/**
 * AKS's Kubernetes release calendar as data (docs/lifecycle-facts.md#aks-calendar): ARM's listKubernetesVersions has
 * no dates, so the end-of-life dates come from the documentation's table, shipped here with its source. Pure.
 */

/** One Kubernetes minor version in AKS's release calendar. @public */
export interface AksMinorLifecycle {
  /** `1.33` */
  minor: string;
  /** The month AKS made it generally available, `YYYY-MM` (the day is not published). */
  ga: string;
  /** The last day of community support, `YYYY-MM-DD` (a month in the table means its last day). */
  endOfLife: string;
  /** The last day of long-term support (Premium tier with the AKSLongTermSupport plan), `YYYY-MM-DD`. */
  ltsEndOfLife?: string;
}

/**
 * MicrosoftDocs/azure-aks-docs `articles/aks/supported-kubernetes-versions.md` at fb060abe (2026-08-21), "AKS
 * Kubernetes release calendar" and "LTS versions" (docs/lifecycle-facts.md#aks-calendar).
 * @public
 */
export const AKS_RELEASE_CALENDAR: readonly AksMinorLifecycle[] = [
  {
    minor: '1.29',
    ga: '2024-03',
    endOfLife: '2025-03-31',
    ltsEndOfLife: '2026-04-30',
  },
  {
    minor: '1.30',
    ga: '2024-07',
    endOfLife: '2025-08-22',
    ltsEndOfLife: '2026-07-31',
  },
  {
    minor: '1.31',
    ga: '2024-11',
    endOfLife: '2025-11-01',
    ltsEndOfLife: '2026-11-30',
  },
  {
    minor: '1.32',
    ga: '2025-04',
    endOfLife: '2026-03-31',
    ltsEndOfLife: '2027-03-31',
  },
  {
    minor: '1.33',
    ga: '2025-06',
    endOfLife: '2026-07-31',
    ltsEndOfLife: '2027-07-31',
  },
  {
    minor: '1.34',
    ga: '2025-11',
    endOfLife: '2026-11-30',
    ltsEndOfLife: '2027-11-30',
  },
  {
    minor: '1.35',
    ga: '2026-03',
    endOfLife: '2027-03-31',
    ltsEndOfLife: '2028-03-31',
  },
  {
    minor: '1.36',
    ga: '2026-06',
    endOfLife: '2027-06-30',
    ltsEndOfLife: '2028-06-30',
  },
  {
    minor: '1.37',
    ga: '2026-10',
    endOfLife: '2027-10-31',
    ltsEndOfLife: '2028-10-31',
  },
];

/** A valid calendar day `YYYY-MM-DD` (no 2027-02-30). */
const isDay = (s: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};
const isMonth = (s: string) =>
  /^\d{4}-(0[1-9]|1[0-2])$/.test(s) && Number(s.slice(0, 4)) >= 2000;
const minorKey = (m: string) => m.split('.').map(Number);

/**
 * The shipped calendar with the operator's entries (`capz.lifecycle.calendar`) laid over it: an entry replaces the
 * shipped minor of the same name, or adds a minor (AKS publishes a new minor's dates before this product's next
 * release). An entry that is not a calendar entry is left out and said in `errors`, in the config's words; the backend
 * refuses to start on any (a wrong date would silently move every notice), the pages use the valid ones.
 * @public
 */
export function aksCalendarWith(
  entries: ReadonlyArray<Partial<Record<keyof AksMinorLifecycle, unknown>>>,
  shipped: readonly AksMinorLifecycle[] = AKS_RELEASE_CALENDAR,
): { calendar: AksMinorLifecycle[]; errors: string[] } {
  const byMinor = new Map(shipped.map(e => [e.minor, e]));
  const errors: string[] = [];
  entries.forEach((e, i) => {
    const at = `capz.lifecycle.calendar[${i}]`;
    const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
    const minor = str(e.minor);
    const ga = str(e.ga);
    const endOfLife = str(e.endOfLife);
    const lts = e.ltsEndOfLife === undefined ? undefined : str(e.ltsEndOfLife);
    const wrong: string[] = [];
    if (!/^\d+\.\d+$/.test(minor))
      wrong.push(
        `minor must be a Kubernetes minor version such as "1.38" (got ${JSON.stringify(
          e.minor,
        )})`,
      );
    if (!isMonth(ga))
      wrong.push(
        `ga must be the month AKS made it generally available, "YYYY-MM" (got ${JSON.stringify(
          e.ga,
        )})`,
      );
    if (!isDay(endOfLife))
      wrong.push(
        `endOfLife must be the last day of community support, "YYYY-MM-DD" (got ${JSON.stringify(
          e.endOfLife,
        )})`,
      );
    if (lts !== undefined && !isDay(lts))
      wrong.push(
        `ltsEndOfLife must be the last day of long-term support, "YYYY-MM-DD" (got ${JSON.stringify(
          e.ltsEndOfLife,
        )})`,
      );
    if (!wrong.length && endOfLife.slice(0, 7) < ga)
      wrong.push(`endOfLife ${endOfLife} is before its GA month ${ga}`);
    if (!wrong.length && lts !== undefined && lts < endOfLife)
      wrong.push(
        `ltsEndOfLife ${lts} is before its community end of life ${endOfLife}`,
      );
    if (wrong.length) {
      errors.push(`${at}${minor ? ` (${minor})` : ''}: ${wrong.join('; ')}.`);
      return;
    }
    byMinor.set(minor, {
      minor,
      ga,
      endOfLife,
      ...(lts !== undefined ? { ltsEndOfLife: lts } : {}),
    });
  });
  const calendar = [...byMinor.values()].sort((a, b) => {
    const [x, y] = [minorKey(a.minor), minorKey(b.minor)];
    return x[0] - y[0] || x[1] - y[1];
  });
  return { calendar, errors };
}

/** The settings of `capz.lifecycle` that the pages and the backend both read. @public */
export interface AksLifecycleSettings {
  /** `capz.lifecycle.soonDays` (default 60). */
  soonDays: number;
  /** The shipped calendar with `capz.lifecycle.calendar` laid over it. */
  calendar: AksMinorLifecycle[];
  /** The entries of `capz.lifecycle.calendar` left out, in words (see {@link aksCalendarWith}). */
  errors: string[];
}

/**
 * `capz.lifecycle` read once for the pages and the backend, from Backstage's config (typed by shape, so
 * that this package needs no config library).
 * @public
 */
export function aksLifecycleSettings(config: {
  getOptional(key: string): unknown;
  getOptionalNumber(key: string): number | undefined;
}): AksLifecycleSettings {
  const soonDays = config.getOptionalNumber('capz.lifecycle.soonDays') ?? 60;
  const raw = config.getOptional('capz.lifecycle.calendar') ?? [];
  if (!Array.isArray(raw))
    return {
      soonDays,
      calendar: [...AKS_RELEASE_CALENDAR],
      errors: ['capz.lifecycle.calendar must be a list of calendar entries.'],
    };
  const entries = raw.map(e =>
    e && typeof e === 'object' && !Array.isArray(e)
      ? (e as Partial<Record<keyof AksMinorLifecycle, unknown>>)
      : {},
  );
  return { soonDays, ...aksCalendarWith(entries) };
}
