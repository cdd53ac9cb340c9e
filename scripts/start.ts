/**
 * `npm start`: infrastructure, the five services, and a demo organization.
 * `-- --instances N`: N instances of every service, the gateways behind a
 * balancer on the public port; `-- --nats-cluster K`: K nats-server nodes as
 * one cluster, every stream on K replicas. Ctrl-C drains and stops everything
 * this started.
 */
import { PROCESSES, basicAuth, natsServers } from "@teamchat/shared";
import { connect } from "@nats-io/transport-node";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, provisionInfra, REPO_ROOT } from "./lib/infra";
import { createOrganization, zuliprc } from "./lib/organization";
import { buildBundles } from "./lib/build";
import { startBalancer, type Balancer } from "./lib/balancer";
import { ServiceInstances } from "./lib/services";

/** `--instances N --nats-cluster K`, each at least 1 (default 1). */
function parseOptions(): { instances: number; natsNodes: number } {
  const { values } = parseArgs({
    options: { instances: { type: "string", default: "1" }, "nats-cluster": { type: "string", default: "1" } },
  });
  const count = (name: string, value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > 9) throw new Error(`--${name} takes a whole number from 1 to 9`);
    return n;
  };
  return {
    instances: count("instances", values.instances!),
    natsNodes: count("nats-cluster", values["nats-cluster"]!),
  };
}

const DEMO = { subdomain: "", name: "Demo Organization", ownerEmail: "owner@example.com", ownerName: "Demo Owner" };

/**
 * A new demo organization's first channel, as Zulip opens a new organization
 * with "general": the owner subscribed and a welcome message in it, so that a
 * client has something to show and to send to. Through the HTTP API, as a
 * user would make it.
 */
async function openGeneralChannel(site: string, email: string, apiKey: string): Promise<void> {
  const post = async (path: string, form: Record<string, string>) => {
    const reply = await fetch(`${site}/api/v1${path}`, {
      method: "POST",
      headers: { authorization: basicAuth({ email, apiKey }) },
      body: new URLSearchParams(form),
    });
    const body = (await reply.json()) as { result: string; msg: string };
    if (body.result !== "success") throw new Error(`POST ${path}: ${body.msg}`);
  };
  await post("/users/me/subscriptions", {
    subscriptions: JSON.stringify([{ name: "general", description: "Everyone's channel" }]),
  });
  await post("/messages", {
    type: "stream",
    to: "general",
    topic: "welcome",
    content: "Welcome to the demo organization! Invite people, or send a message here to try things out.",
  });
}

async function main() {
  const { instances: perService, natsNodes } = parseOptions();
  const dataDir = process.env.TEAMCHAT_DATA_DIR ?? join(REPO_ROOT, ".data");
  const port = Number(process.env.PORT ?? 9991);
  const baseUrl = process.env.EXTERNAL_URL ?? `http://localhost:${port}`;
  const log = (line: string) => process.stdout.write(`${line}\n`);

  log(`[start] provisioning infrastructure (data in ${dataDir})...`);
  const infra = await provisionInfra({ dataDir, natsNodes });
  // one gateway listens on the public port itself; several each on a free one, behind the balancer
  const gatewayPorts =
    perService === 1 ? [port] : await Promise.all(Array.from({ length: perService }, () => freePort()));
  const env = {
    ...process.env,
    NATS_URL: infra.natsUrl,
    NATS_STREAM_REPLICAS: process.env.NATS_STREAM_REPLICAS ?? String(natsNodes),
    MONGO_URL: infra.mongoUrl,
    ...(infra.searchUrl && { SEARCH_URL: infra.searchUrl }),
    // the public port (each gateway gets its own from ServiceInstances)
    PORT: String(port),
    EXTERNAL_URL: baseUrl,
  };
  let services: ServiceInstances | undefined;
  let balancer: Balancer | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log("[start] stopping services (draining)...");
    await balancer?.close();
    await services?.stop();
    log("[start] stopping infrastructure...");
    await infra.stop();
    log("[start] stopped.");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  try {
    log("[start] building the service bundles (dist/)...");
    await buildBundles(PROCESSES);
    log(
      `[start] starting ${perService > 1 ? `${perService} instances of each of the services` : "services"}: ${PROCESSES.join(", ")}`,
    );
    services = new ServiceInstances({
      services: PROCESSES,
      perService,
      env,
      gatewayPorts,
      onCrash: (instance, code, signal) => {
        log(`[start] ${instance.label} exited unexpectedly (code ${code}, signal ${signal}); stopping everything`);
        void shutdown(1);
      },
    });
    await services.waitHealthy(120_000);
    if (perService > 1) {
      balancer = await startBalancer({ host: process.env.HOST ?? "127.0.0.1", port, backendPorts: gatewayPorts });
      log(`[start] balancer on port ${port} in front of the gateways on ${gatewayPorts.join(", ")}`);
    }

    const nc = await connect({ servers: natsServers(infra.natsUrl), name: "start" });
    const pwFile = join(dataDir, "demo-owner-password");
    const password = existsSync(pwFile) ? readFileSync(pwFile, "utf8").trim() : randomBytes(9).toString("base64url");
    writeFileSync(pwFile, password, { mode: 0o600 });
    const org = await createOrganization(nc, { ...DEMO, ownerPassword: password });
    await nc.close();
    if (org.realmCreated) {
      // the demo works without it: say why it is missing and go on
      await openGeneralChannel(org.realm.uri, DEMO.ownerEmail, org.apiKey).catch((err: unknown) =>
        log(
          `[start] could not open the demo's "general" channel (${(err as Error).message}); the organization works without it`,
        ),
      );
    }
    const rcPath = join(dataDir, "zuliprc");
    writeFileSync(rcPath, zuliprc(DEMO.ownerEmail, org.apiKey, org.realm.uri), { mode: 0o600 });
    writeFileSync(
      join(dataDir, "runtime.json"),
      JSON.stringify({ natsUrl: infra.natsUrl, mongoUrl: infra.mongoUrl, baseUrl }, null, 2),
    );

    log("");
    log("=".repeat(72));
    log(`Team chat is running at ${org.realm.uri}  (API root ${org.realm.uri}/api/v1)`);
    log(`Organization: ${org.realm.name}${org.realmCreated ? " (created now)" : ""}`);
    log(`Owner:        ${DEMO.ownerEmail}   password: ${password}`);
    log(`API key:      ${org.apiKey}   (a new key each start; earlier ones stay valid)`);
    log(`zuliprc:      ${rcPath}`);
    log(`Try:          curl -sS -u ${DEMO.ownerEmail}:${org.apiKey} ${org.realm.uri}/api/v1/users/me`);
    log("Stop with Ctrl-C.");
    log("=".repeat(72));
  } catch (err) {
    log(`[start] failed: ${(err as Error).message}`);
    await shutdown(1);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[start] ${(err as Error).message}\n`);
  process.exit(1);
});
