import { z } from "zod";

/** Every environment variable the system reads. The README's configuration table mirrors this. */
export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** One server, or several separated by commas (every node of a cluster, so that a client fails over). */
  NATS_URL: z.string().default("nats://127.0.0.1:4222"),
  /**
   * Replicas of every JetStream stream and KV bucket the services create: 1 on
   * one nats-server, up to the cluster's node count (3 survives losing a node).
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Server URL; each service uses its own database on it (`<MONGO_DB_PREFIX>_<service>`). */
  MONGO_URL: z.string().default("mongodb://127.0.0.1:27017"),
  MONGO_DB_PREFIX: z.string().default("teamchat"),
  /**
   * PostgreSQL server that serves full-text search (each MONGO_DB_PREFIX in its own schema); unset: the
   * database's own text index, which MongoDB has and the embedded SecantusDB has not.
   */
  SEARCH_URL: z.string().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(9991),
  HOST: z.string().default("127.0.0.1"),
  /** Base URL printed and used for realm_uri of the default organization. */
  EXTERNAL_URL: z.string().optional(),
  /** Subdomain of the organization served for bare hosts (localhost, IPs). "" = the root realm. */
  DEFAULT_REALM_SUBDOMAIN: z.string().default(""),
  BUS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Parallel handlers per service instance. */
  BUS_CONCURRENCY: z.coerce.number().int().positive().default(256),
  RATE_LIMIT_REQUESTS: z.coerce.number().int().positive().default(200),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).default(30),
  /**
   * scrypt's work factor for new password hashes, as log2 of its N. A stored hash keeps its
   * own parameters, so changing this locks nobody out. The tests use 10: hashing at 15 took a
   * large share of the test run's time (docs/adr/0020-password-hashing-cost.md).
   */
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(16).default(15),
  /** The largest request body the gateway reads (Zulip's nginx: 25 MiB, its upload limit). */
  REQUEST_BODY_LIMIT_MIB: z.coerce.number().positive().default(25),
  /**
   * How deeply arrays and objects may nest in a JSON parameter or body: Zulip's
   * deepest parameters (a narrow of terms with list operands) need 3; far deeper
   * input would exhaust the stack when validated or re-encoded for the bus.
   */
  JSON_DEPTH_LIMIT: z.coerce.number().int().positive().default(32),
  /**
   * Zulip's camo_key secret: the HMAC key that signs the `/external_content/...` URLs `/thumbnail`
   * redirects to, so that the image proxy fetches only URLs this server sent a client to. Unset: a
   * random key the first gateway makes and keeps in JetStream for every instance.
   */
  CAMO_KEY: z.string().min(1).optional(),
  /** The largest image the proxy passes on (go-camo's max size); larger ones are refused or cut off. */
  CAMO_MAX_SIZE_MIB: z.coerce.number().positive().default(25),
  /** How long the proxy's fetch of an image may take, redirects and body included (go-camo's timeout). */
  CAMO_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
  /**
   * Zulip's INLINE_URL_EMBED_PREVIEW: whether organizations may turn on previews of the web pages
   * messages link (their inline_url_embed_preview setting, off by default); the server fetches the pages.
   */
  INLINE_URL_EMBED_PREVIEW: z.stringbool().default(true),
  /**
   * Addresses or CIDR ranges, comma-separated, that the proxy and link previews may fetch from although they are not
   * public (loopback, private, link-local...): for tests and closed networks. Empty: public addresses only.
   */
  CAMO_ALLOWED_PRIVATE_ADDRESSES: z.string().default(""),
  /**
   * Reverse proxies whose X-Forwarded-For the gateway believes: addresses or CIDR ranges, comma-separated
   * (Zulip's `loadbalancer.ips`). A request through them is then from the address they forwarded, for the
   * anonymous rate limit and new-login mail. Empty: from the connection's peer, whatever the request says.
   */
  TRUSTED_PROXIES: z.string().default(""),
  /** Long-poll wait before a heartbeat event (Zulip: 50 s). */
  EVENT_HEARTBEAT_SECONDS: z.coerce.number().positive().default(50),
  /**
   * POST /streams/{id}/delete_topic deletes in batches until this much time has
   * passed, then answers complete=false for the client to repeat (Zulip: 50 s).
   */
  DELETE_TOPIC_TIME_BUDGET_SECONDS: z.coerce.number().min(0).default(50),
  /**
   * A realm export whose instance says nothing for this long (it died) is
   * given to another instance, which runs it again from the start.
   */
  REALM_EXPORT_CLAIM_SECONDS: z.coerce.number().positive().default(60),
  /**
   * Domain events wait in a JetStream stream until notifications has applied
   * them; these bound what piles up while no notifications instance runs.
   */
  DOMAIN_EVENTS_MAX_AGE_HOURS: z.coerce.number().positive().default(24),
  DOMAIN_EVENTS_MAX_MIB: z.coerce.number().positive().default(1024),
  /**
   * How often each messaging instance looks whether an organization's weekly digest day has come
   * (Zulip's daily enqueue_digest_emails); a day's digests are queued at its first check.
   */
  DIGEST_CHECK_INTERVAL_SECONDS: z.coerce.number().positive().default(3600),
  /** Idle event queues are collected after this (Zulip: 10 min). */
  EVENT_QUEUE_IDLE_SECONDS: z.coerce.number().positive().default(600),
  /** `npm start`'s data directory; mail goes under it unless SMTP or INVITATION_MAIL_DIR says otherwise. */
  TEAMCHAT_DATA_DIR: z.string().default("./.data"),
  /** Where the development mail transport writes every mail when no SMTP server is set (default `<TEAMCHAT_DATA_DIR>/invitation-mail`). */
  INVITATION_MAIL_DIR: z.string().optional(),
  /**
   * The SMTP server all mail goes through (nodemailer's URL: `smtp://user:password@host:587`,
   * `smtps://...` for implicit TLS). Unset, and SMTP_HOST unset: the development transport (files).
   */
  SMTP_URL: z.string().optional(),
  /** The SMTP server as separate settings, when SMTP_URL is unset (Zulip's EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER). */
  SMTP_HOST: z.string().optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  /** implicit: TLS from the start (port 465); starttls: STARTTLS required; opportunistic: STARTTLS when offered; none: plain */
  SMTP_TLS: z.enum(["implicit", "starttls", "opportunistic", "none"]).default("starttls"),
  /** Zulip's INVITATION_LINK_VALIDITY_MINUTES: how long invitations last when the inviter does not say (10 days). */
  INVITATION_LINK_VALIDITY_MINUTES: z.coerce.number().int().positive().default(14_400),
  /**
   * Zulip's PUSH_NOTIFICATION_BOUNCER_URL: the push notification service (bouncer) this
   * server uses. Unset: POST /mobile_push/register answers PUSH_SERVICE_NOT_CONFIGURED.
   */
  PUSH_NOTIFICATION_BOUNCER_URL: z.url().optional(),
  /**
   * The server's registration with that service (Zulip's zulip_org_id and zulip_org_key,
   * from `manage.py register_server`): the Basic credentials of every request to it.
   * Required with PUSH_NOTIFICATION_BOUNCER_URL (identity does not start without them).
   */
  ZULIP_ORG_ID: z.uuid().optional(),
  ZULIP_ORG_KEY: z.string().min(1).optional(),
  /**
   * Each process's own listener for `GET /metrics` (Prometheus) and `GET /health`
   * (its dependencies): unset or empty, none; 0, a free port.
   */
  METRICS_PORT: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  /** Where that listener binds: every address, as Prometheus and probes come from other hosts and containers. */
  METRICS_HOST: z.string().default("0.0.0.0"),
});
export type Config = z.infer<typeof envSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}\nFix these variables (see README, Configuration).`);
  }
  return parsed.data;
}

/** NATS_URL's servers, for nats.js' `servers` (which takes a list, not a comma-separated string). */
export const natsServers = (url: string): string[] =>
  url
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export const databaseName = (config: Pick<Config, "MONGO_DB_PREFIX">, service: string): string =>
  `${config.MONGO_DB_PREFIX}_${service.replace(/-/g, "_")}`;
