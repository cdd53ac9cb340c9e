/**
 * `npm start`: infrastructure, the five services, and a demo organization.
 * Ctrl-C drains and stops everything this started.
 */
import { PROCESSES } from "@teamchat/shared";
import { connect } from "@nats-io/transport-node";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { provisionInfra, REPO_ROOT } from "./lib/infra";
import { createOrganization, zuliprc } from "./lib/organization";
import { buildBundles } from "./lib/build";
import { spawnService, stopServices, waitForHealth, type ServiceProcess } from "./lib/services";

const DEMO = { subdomain: "", name: "Demo Organization", ownerEmail: "owner@example.com", ownerName: "Demo Owner" };

async function main() {
  const dataDir = process.env.TEAMCHAT_DATA_DIR ?? join(REPO_ROOT, ".data");
  const port = Number(process.env.PORT ?? 9991);
  const baseUrl = process.env.EXTERNAL_URL ?? `http://localhost:${port}`;
  const log = (line: string) => process.stdout.write(`${line}\n`);

  log(`[start] provisioning infrastructure (data in ${dataDir})...`);
  const infra = await provisionInfra({ dataDir });
  const env = {
    ...process.env,
    NATS_URL: infra.natsUrl,
    MONGO_URL: infra.mongoUrl,
    PORT: String(port),
    EXTERNAL_URL: baseUrl,
  };
  const procs: ServiceProcess[] = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log("[start] stopping services (draining)...");
    await stopServices(procs);
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
    log("[start] starting services: " + PROCESSES.join(", "));
    PROCESSES.forEach((name, i) => procs.push(spawnService(name, env, i)));
    for (const p of procs) {
      p.child.once("exit", (code, signal) => {
        if (stopping) return;
        log(`[start] ${p.name} exited unexpectedly (code ${code}, signal ${signal}); stopping everything`);
        void shutdown(1);
      });
    }
    await waitForHealth(`http://127.0.0.1:${port}`, 120_000, procs);

    const nc = await connect({ servers: infra.natsUrl, name: "start" });
    const pwFile = join(dataDir, "demo-owner-password");
    const password = existsSync(pwFile) ? readFileSync(pwFile, "utf8").trim() : randomBytes(9).toString("base64url");
    writeFileSync(pwFile, password, { mode: 0o600 });
    const org = await createOrganization(nc, { ...DEMO, ownerPassword: password });
    await nc.close();
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
