/**
 * The whole system as separate processes, several instances of every service
 * (each gateway on its own port), on a nats-server (or a NATS cluster) and a
 * database this starts in a throw-away directory, with what a fault test
 * needs: kill any instance, start it again, restart NATS or the database on
 * the same port, kill and restart one node of the NATS cluster.
 */
import { mkdtempSync, rmSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { PROCESSES } from "@teamchat/shared";
import { buildBundles } from "../scripts/lib/build";
import {
  freePort,
  startMongo,
  startPostgres,
  startNats,
  startNatsCluster,
  type NatsCluster,
  type StartedServer,
} from "../scripts/lib/infra";
import { ServiceInstances, type Instance } from "../scripts/lib/services";

/** Lines of a crashed instance's output told with its crash (a fatal start-up error is its last). */
const CRASH_LINES = 5;
/** The instances' latest lines kept for the report (they log warnings and errors only). */
const KEPT_LINES = 5000;

export type { Instance };

export interface Cluster {
  /** instances that exited without being killed (a crash: see services.log), each started again */
  crashes: string[];
  /** The instances' latest lines, as `<label> | <line>`, for a report to quote. */
  lines(): string[];
  gatewayPorts: number[];
  /** every NATS node's URL, comma-separated */
  natsUrl: string;
  mongoUrl: string;
  dbPrefix: string;
  instances: Instance[];
  /** The instance's `/metrics` (its METRICS_PORT, kept across its restarts). */
  metricsUrl(instance: Instance): string;
  /** SIGKILL, then a fresh process in its place. */
  killAndRestart(instance: Instance): Promise<void>;
  /** Stops NATS (SIGTERM) and starts it again on the same port and store; resolves once it listens (one node only). */
  restartNats(): Promise<void>;
  /** The NATS cluster (`natsNodes` > 1): its nodes can be killed and started again. */
  natsCluster?: NatsCluster;
  restartDatabase(): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  instancesPerService: number;
  /** 1: one nats-server; more: a cluster of that many nodes, every stream with that many replicas */
  natsNodes: number;
  /** more environment for every instance */
  env?: Record<string, string>;
}

export async function startCluster(
  { instancesPerService, natsNodes, env = {} }: ClusterOptions,
  say: (line: string) => void,
): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-chaos-"));
  const logPath = join(dataDir, "services.log");
  const serviceLog = createWriteStream(logPath);
  say(`data and service logs in ${dataDir}`);
  const natsPort = await freePort();
  const mongoPort = await freePort();
  // the servers' own lines (elections, catch-up, restarts) beside the services'
  const infraOpts = {
    dataDir,
    progress: say,
    serverOutput: (name: string, line: string) => serviceLog.write(`${name.padEnd(15)}| ${line}\n`),
  };
  const natsCluster = natsNodes > 1 ? await startNatsCluster({ ...infraOpts, nodes: natsNodes }) : undefined;
  let nats: StartedServer | undefined = natsCluster ? undefined : await startNats({ ...infraOpts, port: natsPort });
  const natsUrl = natsCluster?.url ?? nats!.url;
  let mongo: StartedServer = await startMongo({ ...infraOpts, port: mongoPort });
  // search's engine beside SecantusDB, as `npm start` starts it
  const postgres = await startPostgres(infraOpts);
  const gatewayPorts = await Promise.all(Array.from({ length: instancesPerService }, () => freePort()));
  const dbPrefix = `chaos${Date.now()}`;
  say("building the service bundles...");
  await buildBundles(PROCESSES);
  const crashes: string[] = [];
  /** each instance's metrics listener port, by label */
  const metricsPorts = new Map<string, number>();
  for (const service of PROCESSES) {
    for (let n = 1; n <= instancesPerService; n++) metricsPorts.set(`${service}#${n}`, await freePort());
  }
  /** Each instance's last lines, told with its crash: services.log goes with the data directory. */
  const lastLines = new Map<string, string[]>();
  const kept: string[] = [];
  const noteLastLine = (line: string) => {
    const [, label, text] = /^(\S+)\s*\| (.*)$/s.exec(stripVTControlCharacters(line).trimEnd()) ?? [];
    if (!label || text === undefined) return;
    kept.push(`${label} | ${text}`);
    if (kept.length > KEPT_LINES) kept.shift();
    const lines = lastLines.get(label) ?? lastLines.set(label, []).get(label)!;
    lines.push(text.slice(0, 2000));
    if (lines.length > CRASH_LINES) lines.shift();
  };
  /** An instance that exits on its own (not killed here) is a crash: noted, told and started again. */
  const instances: ServiceInstances = new ServiceInstances({
    services: PROCESSES,
    perService: instancesPerService,
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      NATS_STREAM_REPLICAS: String(natsNodes),
      MONGO_URL: mongo.url,
      SEARCH_URL: postgres.url,
      MONGO_DB_PREFIX: dbPrefix,
      PORT: "0",
      HOST: "127.0.0.1",
      EXTERNAL_URL: `http://localhost:${gatewayPorts[0]}`,
      NODE_ENV: "production",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      RATE_LIMIT_REQUESTS: "100000000",
      ...env,
    },
    instanceEnv: (instance) => ({ METRICS_PORT: String(metricsPorts.get(instance.label)) }),
    gatewayPorts,
    write: (line) => {
      serviceLog.write(line);
      noteLastLine(line);
    },
    onCrash: (instance, code, signal) => {
      crashes.push(`${instance.label} (code ${code}, signal ${signal})`);
      say(`  ${instance.label} exited on its own (code ${code}, signal ${signal}); starting it again. Its last lines:`);
      for (const line of lastLines.get(instance.label) ?? []) say(`    ${line}`);
      instances.spawn(instance);
    },
  });
  say(`started ${instances.all.length} instances: ${instances.all.map((i) => i.label).join(", ")}`);
  await instances.waitHealthy(120_000);

  return {
    crashes,
    lines: () => [...kept],
    gatewayPorts,
    natsUrl,
    get mongoUrl() {
      return mongo.url;
    },
    dbPrefix,
    instances: instances.all,
    metricsUrl: (instance) => `http://127.0.0.1:${metricsPorts.get(instance.label)}/metrics`,
    killAndRestart: (instance) => instances.killAndRestart(instance),
    restartNats: async () => {
      if (!nats) throw new Error("restartNats: a NATS cluster restarts node by node (natsCluster)");
      await nats.stop();
      nats = await startNats({ ...infraOpts, port: natsPort });
    },
    natsCluster,
    restartDatabase: async () => {
      await mongo.stop();
      mongo = await startMongo({ ...infraOpts, port: mongoPort });
    },
    stop: async () => {
      await instances.stop();
      await Promise.all([nats?.stop(), natsCluster?.stop(), mongo.stop(), postgres.stop()]);
      serviceLog.end();
      if (process.env.CHAOS_KEEP_DATA !== "1") rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
