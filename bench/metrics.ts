/**
 * The services' own counters, as each serves them on its `/metrics` listener in the bench
 * (System.metricsUrls): what a scenario cost in the database (`teamchat_db_*`) is their growth
 * from a scrape before it to a scrape after.
 */

/** One scrape of a `/metrics`: each sample's value by its line's name and labels as written. */
export type Samples = Map<string, number>;

export async function scrape(url: string): Promise<Samples> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`${url}/metrics: HTTP ${res.status}`);
  const samples: Samples = new Map();
  for (const line of (await res.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The sum of `metric`'s samples, every label's. */
export function total(samples: Samples, metric: string): number {
  let sum = 0;
  for (const [key, value] of samples) if (key.startsWith(`${metric}{`) || key === metric) sum += value;
  return sum;
}

/** A metric's growth from `before` to `after`, by the value of one of its labels. */
export function growthBy(before: Samples, after: Samples, metric: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  const pattern = new RegExp(`[{,]${label}="([^"]*)"`);
  for (const [key, value] of after) {
    if (!key.startsWith(`${metric}{`)) continue;
    const grown = value - (before.get(key) ?? 0);
    const name = pattern.exec(key)?.[1] ?? "";
    if (grown) out[name] = (out[name] ?? 0) + grown;
  }
  return out;
}
