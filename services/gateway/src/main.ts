import { connectNats, createLogger, loadConfig } from "@teamchat/shared";
import { buildGateway } from "./app";

const log = createLogger("gateway");

async function main() {
  const config = loadConfig();
  const nc = await connectNats(config, "gateway", log);
  const app = await buildGateway({ nc, config, log });
  await app.listen({ port: config.PORT, host: config.HOST });
  log.info({ port: config.PORT, host: config.HOST }, "ready");
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "draining");
    // Fastify finishes in-flight requests before close resolves.
    app
      .close()
      .then(() => nc.drain())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((err: unknown) => {
  log.fatal({ err }, "gateway failed to start: check NATS_URL points at a running nats-server with JetStream (-js)");
  process.exit(1);
});
