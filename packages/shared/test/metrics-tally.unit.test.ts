/** Hot-path counts (Tally): plain numbers until a scrape adds them to their counter's series. */
import { ServiceMetrics } from "../src/metrics";

const lookups = async (m: ServiceMetrics) =>
  (await m.registry.getSingleMetric("teamchat_cache_lookups_total")!.get()).values.map((v) => [
    v.labels.cache,
    v.labels.result,
    v.value,
  ]);

it("adds a tally's counts to its series at each scrape, once", async () => {
  const metrics = new ServiceMetrics("test", false);
  const hits = metrics.lookupTally("users", "hit");
  const misses = metrics.lookupTally("users", "miss");
  hits.inc();
  hits.inc();
  misses.inc();
  expect(await lookups(metrics)).toEqual([
    ["users", "hit", 2],
    ["users", "miss", 1],
  ]);
  // a second scrape adds nothing that was counted already
  hits.inc();
  expect(await lookups(metrics)).toEqual([
    ["users", "hit", 3],
    ["users", "miss", 1],
  ]);
});
