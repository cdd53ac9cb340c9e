import type { ProcessName } from "@teamchat/shared";
import type { TestSystem } from "./system";

/** One scrape of a process's first instance's `/metrics` (the system started with METRICS_PORT set). */
export const metricsText = async (sys: Pick<TestSystem, "metricsUrls">, name: ProcessName): Promise<string> =>
  (await fetch(`${sys.metricsUrls(name)[0]}/metrics`)).text();

/** The sum of a counter's series (`teamchat_<name>`) that carry every one of these labels. */
export const counterSum = (text: string, name: string, labels: Record<string, string>): number =>
  text
    .split("\n")
    .filter((line) => line.startsWith(`teamchat_${name}{`))
    .filter((line) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
