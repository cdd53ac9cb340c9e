/**
 * The processes of the system. Bus services answer requests over NATS, in the
 * order they are started; the gateway starts last, so that it finds them answering.
 * The gateway's /health, the start script, the benchmark and the tests use these lists.
 */
export const BUS_SERVICES = ["identity", "realm-config", "messaging", "notifications"] as const;
export type BusService = (typeof BUS_SERVICES)[number];

export const PROCESSES = [...BUS_SERVICES, "gateway"] as const;
export type ProcessName = (typeof PROCESSES)[number];
