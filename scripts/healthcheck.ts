/** Container health check of a bus service: `healthcheck.ts <service>` pings `<service>.health.ping` over NATS. */
import { BusClient, connectNats, healthContract, loadConfig } from "@teamchat/shared";

async function main() {
  const service = process.argv[2];
  if (!service) throw new Error("usage: healthcheck.ts <service>");
  const config = loadConfig();
  const nc = await connectNats(config, "healthcheck");
  try {
    await new BusClient(nc, { timeoutMs: 2_000 }).request(
      healthContract(service),
      {},
      { realm: null, actor: null, requestId: "healthcheck" },
    );
  } finally {
    await nc.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`unhealthy: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
