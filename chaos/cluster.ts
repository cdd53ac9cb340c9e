/**
 * The whole system as separate processes, several instances of every service
 * (each gateway on its own port), on a nats-server and a database this starts
 * in a throw-away directory, with what a fault test needs: kill any instance,
 * start it again, restart NATS or the database on the same port.
 */
import { mkdtempSync, rmSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROCESSES } from "@teamchat/shared";
import { buildBundles } from "../scripts/lib/build";
import { freePort, startMongo, startNats, type StartedServer } from "../scripts/lib/infra";
import { spawnService, stopServices, waitForHealth, type ServiceProcess } from "../scripts/lib/services";

export interface Instance {
  /** e.g. "messaging#2" */
  label: string;
  service: string;
  proc: ServiceProcess;
}

export interface Cluster {
  /** instances that exited without being killed (a crash: see services.log), each started again */
  crashes: string[];
  gatewayPorts: number[];
  natsUrl: string;
  mongoUrl: string;
  dbPrefix: string;
  instances: Instance[];
  /** SIGKILL, then a fresh process in its place. */
  killAndRestart(instance: Instance): Promise<void>;
  /** Stops NATS (SIGTERM) and starts it again on the same port and store; resolves once it listens. */
  restartNats(): Promise<void>;
  restartDatabase(): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(instancesPerService: number, say: (line: string) => void): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-chaos-"));
  const logPath = join(dataDir, "services.log");
  const serviceLog = createWriteStream(logPath);
  say(`data and service logs in ${dataDir}`);
  const natsPort = await freePort();
  const mongoPort = await freePort();
  const infraOpts = { dataDir, progress: say };
  let nats: StartedServer = await startNats({ ...infraOpts, port: natsPort });
  let mongo: StartedServer = await startMongo({ ...infraOpts, port: mongoPort });
  const gatewayPorts = await Promise.all(Array.from({ length: instancesPerService }, () => freePort()));
  const dbPrefix = `chaos${Date.now()}`;
  const envOf = (service: string, n: number): NodeJS.ProcessEnv => ({
    ...process.env,
    NATS_URL: nats.url,
    MONGO_URL: mongo.url,
    MONGO_DB_PREFIX: dbPrefix,
    PORT: String(service === "gateway" ? gatewayPorts[n] : 0),
    HOST: "127.0.0.1",
    EXTERNAL_URL: `http://localhost:${gatewayPorts[0]}`,
    NODE_ENV: "production",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    RATE_LIMIT_REQUESTS: "100000000",
  });
  say("building the service bundles...");
  await buildBundles(PROCESSES);
  const crashes: string[] = [];
  let stopping = false;
  /** Starts an instance; one that exits on its own (not killed here) is a crash: noted and started again. */
  const spawnInstance = (service: string, n: number, index: number): ServiceProcess => {
    const proc = spawnService(service, envOf(service, n), index, (line) => serviceLog.write(line));
    proc.child.once("exit", (code, signal) => {
      if (stopping || signal === "SIGKILL") return;
      const label = `${service}#${n + 1}`;
      crashes.push(`${label} (code ${code}, signal ${signal})`);
      say(`  ${label} exited on its own (code ${code}, signal ${signal}): see services.log; starting it again`);
      const instance = instances.find((i) => i.label === label);
      if (instance) instance.proc = spawnInstance(service, n, index);
    });
    return proc;
  };
  const instances: Instance[] = PROCESSES.flatMap((service, index) =>
    Array.from({ length: instancesPerService }, (_, n) => ({
      label: `${service}#${n + 1}`,
      service,
      proc: spawnInstance(service, n, index),
    })),
  );
  say(`started ${instances.length} instances: ${instances.map((i) => i.label).join(", ")}`);
  for (const port of gatewayPorts) {
    await waitForHealth(
      `http://127.0.0.1:${port}`,
      120_000,
      instances.map((i) => i.proc),
    );
  }

  const killAndRestart = async (instance: Instance) => {
    const exited = new Promise<void>((r) => instance.proc.child.once("exit", () => r()));
    instance.proc.child.kill("SIGKILL");
    await exited;
    const n = Number(instance.label.split("#")[1]) - 1;
    instance.proc = spawnInstance(instance.service, n, PROCESSES.indexOf(instance.service as never));
    // a gateway is back once it answers on its port (the others join the bus on their own)
    if (instance.service === "gateway") {
      await waitForHealth(`http://127.0.0.1:${gatewayPorts[n]}`, 60_000, [instance.proc]);
    }
  };

  return {
    crashes,
    gatewayPorts,
    get natsUrl() {
      return nats.url;
    },
    get mongoUrl() {
      return mongo.url;
    },
    dbPrefix,
    instances,
    killAndRestart,
    restartNats: async () => {
      await nats.stop();
      nats = await startNats({ ...infraOpts, port: natsPort });
    },
    restartDatabase: async () => {
      await mongo.stop();
      mongo = await startMongo({ ...infraOpts, port: mongoPort });
    },
    stop: async () => {
      stopping = true;
      await stopServices(instances.map((i) => i.proc));
      await Promise.all([nats.stop(), mongo.stop()]);
      serviceLog.end();
      if (process.env.CHAOS_KEEP_DATA !== "1") rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
