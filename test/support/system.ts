/**
 * The whole system in one process, built from the same composition roots as
 * the real entrypoints, on real NATS and a real MongoDB-protocol server.
 * launchSystem() is the shared system of a jest run (global-setup.ts);
 * startSystem() is a private one, with its own nats-server and databases, for
 * tests that stop services, read logs or need other settings.
 */
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  BUS_SERVICES,
  createLogger,
  loadConfig,
  natsServers,
  startService,
  type BusService,
  type Config,
  type ProcessName,
  type ServiceFactory,
} from "@teamchat/shared";
import { startBalancer } from "../../scripts/lib/balancer";
import { createOrganization } from "../../scripts/lib/organization";
import { buildGateway } from "../../services/gateway/src/app";
import { buildIdentity } from "../../services/identity/src/app";
import { buildMessaging } from "../../services/messaging/src/app";
import { buildNotifications } from "../../services/notifications/src/app";
import { buildRealmConfig } from "../../services/realm-config/src/app";
import { startTestNats } from "./nats";
import { ORGANIZATION_NAME, OWNER, organizationClient, type TestOrganization } from "./organization";

export const FACTORIES: { [S in BusService]: ServiceFactory<S> } = {
  identity: buildIdentity,
  "realm-config": buildRealmConfig,
  messaging: buildMessaging,
  notifications: buildNotifications,
};

export interface LaunchedSystem {
  baseUrl: string;
  config: Config;
  /** Starts one more gateway instance on the same bus, with `env` besides the system's; returns its base URL. */
  startGateway(env?: Record<string, string>): Promise<string>;
  /** Stops the gateway at this base URL as its process does on SIGTERM (close, then drain its NATS connection). */
  stopGateway(url: string): Promise<void>;
  /** Stops one service's instance (to test restarts and "no responders"). */
  stopService(name: BusService): Promise<void>;
  /**
   * The oldest instance of a service drops off the bus at once, as a killed
   * process does: its NATS connection closed without draining, nothing
   * answered (then its background work is stopped, so the test leaks nothing).
   */
  killService(name: BusService): Promise<void>;
  /** Starts one more instance of a service. */
  startService(name: BusService): Promise<void>;
  /** Each running instance's metrics listener (`/metrics`, `/health`), oldest first; with METRICS_PORT set. */
  metricsUrls(name: ProcessName): string[];
  stop(): Promise<void>;
}

/** A private system and its default organization (served on the bare host and IPs). */
export type TestSystem = TestOrganization & LaunchedSystem;

export interface SystemOptions {
  /** environment overrides (see packages/shared/src/config.ts) */
  env?: Record<string, string>;
  /** every log line of every service, parsed, is pushed here */
  logs?: Array<Record<string, unknown>>;
  /** instances of every service (default 1); several gateways sit behind a balancer at `baseUrl` */
  instances?: number;
}

/** The four services and a gateway on `natsUrl`, with their own databases. */
export async function launchSystem(
  natsUrl: string,
  { env = {}, logs, instances: perService = 1 }: SystemOptions = {},
): Promise<LaunchedSystem> {
  const prefix = `t${randomBytes(4).toString("hex")}`;
  const configEnv = {
    NODE_ENV: "test",
    NATS_URL: natsUrl,
    MONGO_URL: process.env.TEST_MONGO_URL!,
    ...(process.env.TEST_SEARCH_URL && { SEARCH_URL: process.env.TEST_SEARCH_URL }),
    MONGO_DB_PREFIX: prefix,
    // the development mail transport's files (invitations), one folder per system
    INVITATION_MAIL_DIR: join(tmpdir(), `teamchat-${prefix}-mail`),
    EXTERNAL_URL: "http://localhost",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    // every test user's password is hashed and checked once: at the default cost that was a large share of
    // the run (docs/adr/0020-password-hashing-cost.md)
    PASSWORD_HASH_COST: "10",
    // the image proxy's tests serve images from 127.0.0.1; every other private address stays refused
    CAMO_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1",
    ...env,
  };
  const config = loadConfig(configEnv);
  const sink = logs && {
    write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>),
  };
  const logger = (name: string) => createLogger(name, config.LOG_LEVEL, sink);
  const instances = new Map<
    string,
    Array<{ shutdown: () => Promise<void>; kill: () => Promise<void>; metricsUrl?: string }>
  >();
  const start = async <S extends BusService>(name: S) => {
    const { shutdown, deps, running, metricsListener } = await startService(
      name,
      FACTORIES[name] as ServiceFactory<S>,
      config,
      logger(name),
    );
    const kill = async () => {
      await deps.nc.close();
      await running.stop?.();
      await deps.db.close();
      await metricsListener?.close();
    };
    instances.set(name, [...(instances.get(name) ?? []), { shutdown, kill, metricsUrl: metricsListener?.url }]);
  };
  for (const name of BUS_SERVICES) for (let n = 0; n < perService; n++) await start(name);

  const gateways: Array<{ app: FastifyInstance; nc: NatsConnection; url: string }> = [];
  const startGateway = async (env: Record<string, string> = {}) => {
    const gwNats = await connect({ servers: natsServers(natsUrl), name: "gateway" });
    const app = await buildGateway({
      nc: gwNats,
      config: loadConfig({ ...configEnv, ...env }),
      log: logger("gateway"),
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    gateways.push({ app, nc: gwNats, url });
    return url;
  };
  const stopGateway = async (gw: (typeof gateways)[number]) => {
    gateways.splice(gateways.indexOf(gw), 1);
    await gw.app.close();
    await gw.nc.drain();
  };
  const gatewayUrls: string[] = [];
  for (let n = 0; n < perService; n++) gatewayUrls.push(await startGateway());
  // several gateways: one URL in front of them, as `npm start -- --instances N` gives
  const balancer =
    perService > 1
      ? await startBalancer({
          host: "127.0.0.1",
          port: 0,
          backendPorts: gatewayUrls.map((u) => Number(new URL(u).port)),
        })
      : undefined;
  const baseUrl = balancer ? `http://127.0.0.1:${balancer.port}` : gatewayUrls[0]!;

  return {
    baseUrl,
    config,
    startGateway,
    stopGateway: async (url) => {
      const gw = gateways.find((g) => g.url === url);
      if (!gw) throw new Error(`no gateway at ${url}`);
      await stopGateway(gw);
    },
    stopService: async (name) => {
      const list = instances.get(name) ?? [];
      await list.shift()?.shutdown();
    },
    killService: async (name) => {
      const list = instances.get(name) ?? [];
      await list.shift()?.kill();
    },
    startService: start,
    metricsUrls: (name) =>
      (name === "gateway"
        ? gateways.map((gw) => gw.app.metricsUrl)
        : (instances.get(name) ?? []).map((i) => i.metricsUrl)
      ).filter((url): url is string => url !== undefined),
    stop: async () => {
      await balancer?.close();
      for (const gw of [...gateways]) await stopGateway(gw);
      for (const list of instances.values()) await Promise.all(list.map((s) => s.shutdown()));
    },
  };
}

export async function startSystem(options: SystemOptions = {}): Promise<TestSystem> {
  const nats = await startTestNats();
  const system = await launchSystem(nats.url, options);
  const nc = await connect({ servers: nats.url, name: "test" });
  const org = await createOrganization(nc, {
    subdomain: "",
    name: ORGANIZATION_NAME,
    ownerEmail: OWNER.email,
    ownerName: OWNER.fullName,
    ownerPassword: OWNER.password,
  });
  const stop = async () => {
    await system.stop();
    await nc.drain();
    await nats.stop();
  };
  return {
    ...system,
    ...organizationClient({
      baseUrl: system.baseUrl,
      host: undefined,
      subdomain: "",
      realm: org.realm,
      owner: { ...OWNER, apiKey: org.apiKey, userId: org.userId },
      nc,
      stop,
    }),
  };
}
