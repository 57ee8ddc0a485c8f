import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';

const DURATION = 'sqlgate_http_request_duration_seconds';

/** The exposition lines of one metric family. */
const family = (text: string, name: string): string[] =>
  text
    .split('\n')
    .filter(
      (l) => l.startsWith(`${name}_`) || l.startsWith(`# HELP ${name} `) || l.startsWith(`# TYPE ${name} `),
    );

describe('the request-duration histogram', () => {
  it("exposes exactly what prom-client's Histogram exposes for the same observations", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            method: fc.constantFrom('GET', 'POST', 'DELETE'),
            route: fc.constantFrom('/cost', '/query', '/warehouses', 'unknown'),
            status: fc.constantFrom('200', '404', '422', '500'),
            // Bucket bounds themselves included: `le` is inclusive.
            seconds: fc.oneof(
              fc.constantFrom(0, 0.005, 0.01, 0.025, 1, 30, 31),
              fc.double({ min: 0, max: 60, noNaN: true }),
            ),
          }),
          { maxLength: 200 },
        ),
        async (observations) => {
          const ours = createMetrics(false);
          const oracleRegistry = new Registry();
          const oracle = new Histogram({
            name: DURATION,
            help: 'HTTP request duration',
            labelNames: ['method', 'route', 'status'],
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
            registers: [oracleRegistry],
          });
          for (const o of observations) {
            ours.httpDuration.series(o.method, o.route, o.status).observe(o.seconds);
            oracle.labels(o.method, o.route, o.status).observe(o.seconds);
          }
          const sort = (lines: string[]) => [...lines].sort();
          expect(sort(family(await ours.registry.metrics(), DURATION))).toEqual(
            sort(family(await oracleRegistry.metrics(), DURATION)),
          );
          // The JSON form (what the cluster supervisor sums across workers) agrees as well.
          const json = async (r: Registry) =>
            (
              (await r.getMetricsAsJSON()).find((m) => m.name === DURATION) as
                { values: object[] } | undefined
            )?.values
              .map((v) =>
                JSON.stringify(v, ['labels', 'le', 'method', 'route', 'status', 'value', 'metricName']),
              )
              .sort();
          expect(await json(ours.registry)).toEqual(await json(oracleRegistry));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('resets with the registry, and a series kept by a route counts again after', async () => {
    const m = createMetrics(false);
    const series = m.httpDuration.series('GET', '/cost', '200');
    series.observe(0.2);
    const count = `${DURATION}_count{method="GET",route="/cost",status="200"}`;
    expect(await m.registry.metrics()).toContain(`${count} 1`);
    m.registry.resetMetrics();
    expect(await m.registry.metrics()).toContain(`${count} 0`);
    series.observe(0.3);
    expect(await m.registry.metrics()).toContain(`${count} 1`);
    expect(await m.registry.metrics()).toContain(
      `${DURATION}_sum{method="GET",route="/cost",status="200"} 0.3`,
    );
  });
});

describe('the process metrics', () => {
  it('measure the event-loop lag (sampled every 100 ms, so an idle process is not woken 100 times a second)', async () => {
    const m = createMetrics();
    // Keep the loop busy past a few samples: a lag of about 150 ms must show in the maximum.
    await new Promise((r) => setTimeout(r, 250));
    const end = Date.now() + 150;
    while (Date.now() < end);
    await new Promise((r) => setTimeout(r, 250));
    const text = await m.registry.metrics();
    const max = /^sqlgate_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
    expect(Number(max)).toBeGreaterThan(0.1);
    m.registry.clear();
  });
});
