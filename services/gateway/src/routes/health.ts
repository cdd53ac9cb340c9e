import type { NatsConnection } from "@nats-io/transport-node";
import type { FastifyInstance } from "fastify";
import { BUS_SERVICES, healthContract, type BusClient } from "@teamchat/shared";

/** GET /health: 200 while NATS is connected and every bus service answers its health check, else 503. */
export function registerHealth(app: FastifyInstance, deps: { nc: NatsConnection; bus: BusClient }): void {
  const { nc, bus } = deps;
  app.get("/health", async (req, reply) => {
    const checks = await Promise.all(
      BUS_SERVICES.map(async (s) => {
        try {
          await bus.request(healthContract(s), {}, { realm: null, actor: null, requestId: req.id });
          return [s, "ok"] as const;
        } catch (err) {
          return [s, (err as Error).message] as const;
        }
      }),
    );
    const services = Object.fromEntries(checks);
    const natsOk = !nc.isClosed();
    const ok = natsOk && checks.every(([, v]) => v === "ok");
    return reply
      .status(ok ? 200 : 503)
      .send({ status: ok ? "ok" : "degraded", nats: natsOk ? "ok" : "closed", services });
  });
}
