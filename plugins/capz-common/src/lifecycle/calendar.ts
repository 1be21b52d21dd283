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
