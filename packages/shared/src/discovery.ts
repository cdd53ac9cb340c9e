import { Svcm, type Endpoint, type Service } from "@nats-io/services";
import type { NatsConnection } from "@nats-io/transport-node";
import packageJson from "../../../package.json";

export type { Service };

/**
 * Registers a service instance with NATS' service protocol (`@nats-io/services`):
 * it answers `$SRV.PING|INFO|STATS`, `$SRV.<verb>.<name>` and
 * `$SRV.<verb>.<name>.<id>`, so `nats micro ls` and `nats micro stats <name>`
 * list every instance. The version is the system's (the services are released
 * together). Endpoints added to it share `name` as their queue group, as bus
 * operations always have. `endpointStats` gives the `data` of each endpoint in
 * STATS replies (the module's own processing time only covers a handler's
 * synchronous part).
 */
export function registerDiscovery(
  nc: NatsConnection,
  name: string,
  endpointStats?: (endpoint: Endpoint) => unknown,
): Promise<Service> {
  // the module is built against an earlier @nats-io/nats-core; the connection's interface is the same
  return new Svcm(nc as unknown as ConstructorParameters<typeof Svcm>[0]).add({
    name,
    version: packageJson.version,
    description: `teamchat ${name}`,
    queue: name,
    statsHandler: endpointStats && (async (endpoint) => endpointStats(endpoint)),
  });
}
