// The table `npm run bench:scale` prints, and the same figures as the JSON it writes with --json.
import { type LoadRow } from './scale-load.js';
import { type SeededSite, type SiteSize } from './scale-seed.js';

export interface Latency {
  workload: string;
  /** WordPress 6.1 at +5,000 posts, measured separately on this machine kind (ms). */
  wordpress?: number;
  median: number;
  commandsPerRequest: number;
}

export interface TimelineExport {
  events: number;
  seconds: number;
  perSecond: number;
}

export interface SiteResult {
  size: SiteSize;
  seeded: SeededSite;
  /** From the fork until the service answered (start-up healing included). */
  startSeconds: number;
  latencies: Latency[];
  load: LoadRow[];
  peakRssMiB: number[];
  /** Each process's peak once the service answered, and once the sequential workloads were done (before the load). */
  peakRssByPhase: { started: number[]; sequential: number[] };
  timelineExport?: TimelineExport;
}

// WordPress 6.1 under the same load, measured separately (requests/s).
const WORDPRESS_LOAD: Record<LoadRow['workload'], number> = { update: 50, autosave: 100 };
const WORDPRESS = 'WordPress 6.1 (measured separately)';

const fixed = (value: number | undefined, digits = 1) => (value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits));

/** The table of one site or two (small, then grown), with the ratio when there are two. */
export function printReport(sites: SiteResult[], totalSeconds: number) {
  const [first, second] = sites;
  const siteName = (site: SiteResult) => `${site.size.label} site (${site.size.posts} posts, ${site.seeded.events} events)`;
  const rows = first.latencies.map((latency, i) => {
    const grown = second?.latencies[i];
    return { workload: latency.workload, [first.size.label]: latency, ...(grown ? { [second.size.label]: grown, ratio: grown.median / latency.median } : {}), wordpress: latency.wordpress };
  });
  if (rows.length) {
    if (second) {
      console.log(`\n| workload | ${siteName(first)} median ms | ${siteName(second)} median ms | grown / small | db commands per request (small / grown) | ${WORDPRESS}, ms |`);
      console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    } else {
      console.log(`\n| workload | ${siteName(first)} median ms | db commands per request | ${WORDPRESS}, ms |`);
      console.log('| --- | ---: | ---: | ---: |');
    }
    first.latencies.forEach((latency, i) => {
      const grown = second?.latencies[i];
      const columns = grown
        ? [fixed(latency.median), fixed(grown.median), fixed(grown.median / latency.median, 2), `${fixed(latency.commandsPerRequest)} / ${fixed(grown.commandsPerRequest)}`]
        : [fixed(latency.median), fixed(latency.commandsPerRequest)];
      console.log(`| ${latency.workload} | ${columns.join(' | ')} | ${fixed(latency.wordpress)} |`);
    });
  }

  if (first.load.length) {
    console.log(`\n| under load (32 connections, 2 service processes, one hot post) | site | req/s | p50 ms | p99 ms | non-2xx | 2xx | new events (2xx + committed after the client stopped) | db commands per request | ${WORDPRESS}, req/s |`);
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const workload of ['update', 'autosave'] as const) {
      for (const site of sites) {
        const load = site.load.find((row) => row.workload === workload)!;
        console.log(
          `| ${workload}s | ${site.size.label} | ${fixed(load.perSecond)} | ${fixed(load.p50, 0)} | ${fixed(load.p99, 0)} | ${load.non2xx} | ${load.answered2xx} | ${load.newEvents} (${load.answered2xx} + ${load.committedAfterStop}) | ${fixed(load.commandsPerRequest)} | ${WORDPRESS_LOAD[workload]} |`,
        );
      }
    }
    console.log('log check after each load: seqs contiguous, every 2xx change in the log once, no error answer with an event, no event ahead of one answered before it was sent, the post (or its autosave) reads as the last event: held');
  }

  const timeline = sites.find((site) => site.timelineExport)?.timelineExport;
  if (timeline) console.log(`\nexport:timeline of the grown site's whole log: ${timeline.events} events in ${timeline.seconds.toFixed(1)} s = ${timeline.perSecond.toFixed(0)} events/s (process start included)`);
  for (const site of sites) {
    const mib = (values: number[]) => values.map((value) => value.toFixed(0)).join(' + ');
    console.log(`peak RSS, ${site.size.label} site: ${mib(site.peakRssMiB)} MiB (primary + 2 workers); after the start ${mib(site.peakRssByPhase.started)}, after the sequential workloads ${mib(site.peakRssByPhase.sequential)}; service start ${site.startSeconds.toFixed(1)} s; seeding ${site.seeded.seconds.toFixed(0)} s`);
  }
  console.log(`whole bench: ${(totalSeconds / 60).toFixed(1)} min`);

  return {
    sites: sites.map((site) => ({ ...site.size, ...site.seeded, startSeconds: site.startSeconds, peakRssMiB: site.peakRssMiB, peakRssByPhase: site.peakRssByPhase })),
    workloads: rows,
    load: sites.flatMap((site) => site.load.map((row) => ({ site: site.size.label, ...row, wordpress: WORDPRESS_LOAD[row.workload] }))),
    timelineExport: timeline,
    totalSeconds,
  };
}
