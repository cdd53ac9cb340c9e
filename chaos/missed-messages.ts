/**
 * The fault test's missed-message notifications: the ways a direct message
 * reaches a user who is away (mail through a real SMTP server, mobile push
 * through a local push notification service), each through a server this
 * process runs that fails some requests during the kills, and what is
 * counted at the end: every acknowledged direct message arrived exactly once
 * where it should, and the services' metrics show the server's failures.
 */
import { createHash } from "node:crypto";
import { sleep } from "../bench/http";
import type { TestSmtpServer } from "../test/support/smtp";
import { makeTestDevice, type TestBouncer, type TestDevice } from "../test/support/push-bouncer";
import type { Cluster, Instance } from "./cluster";

/** Each time, the server fails this many requests. */
const FAILURES_EACH_TIME = 3;

/** A user who is away: never polls, mailed after 1 s batches, with a device of each kind registered. */
export interface AwayUser {
  email: string;
  id: number;
  /** the legacy tokens (POST /users/me/android_gcm_reg_id, /users/me/apns_device_token) */
  fcmToken: string;
  apnsToken: string;
  /** the end-to-end encrypted registration's token (POST /mobile_push/register) and its key pair */
  e2eeToken: string;
  e2eeDevice: TestDevice;
}

/** A direct message to a user who is away that the server acknowledged. */
export interface AwayDm {
  token: string;
  id: number;
  to: AwayUser;
  /** when the send was acknowledged (Date.now()) */
  at: number;
}

/** One way a missed message leaves the server, through a server this process runs. */
export interface MissedMessageWay {
  /** as the report says it: "mailed", "pushed" */
  done: string;
  /** the server fails its next few requests, as one that is down does */
  fail(): void;
  /** how many requests the server failed */
  failures(): number;
  /** where one acknowledged direct message must arrive, once each */
  destinations(dm: AwayDm): string[];
  /** how many times each destination received a message */
  arrivals(): Map<string, number>;
  /** when each destination received it, where the server tells */
  arrivalTimes?(): Map<string, number[]>;
  /** the counter that shows the server's failures, on the instances of `service` */
  failureMetric: { service: string; name: string; labels: Record<string, string> };
  /** the lines of that service's instances about this way, quoted when a message never arrived */
  logLines: RegExp;
}

/** What a mobile app registers for one user: its tokens, derived from the address (APNs tokens are hex). */
export async function awayUserDevices(email: string): Promise<Omit<AwayUser, "email" | "id">> {
  const hex = (kind: string) => createHash("sha256").update(`${kind} ${email}`).digest("hex");
  return { fcmToken: hex("fcm"), apnsToken: hex("apns"), e2eeToken: hex("e2ee"), e2eeDevice: await makeTestDevice() };
}

export function mailWay(smtp: TestSmtpServer): MissedMessageWay {
  return {
    done: "mailed",
    fail: () => smtp.refuseNext(FAILURES_EACH_TIME),
    failures: () => smtp.refused,
    destinations: (dm) => [`${dm.to.email} ${dm.token}`],
    arrivals: () => new Map([...mailTimes(smtp)].map(([d, times]) => [d, times.length])),
    arrivalTimes: () => mailTimes(smtp),
    failureMetric: {
      service: "messaging",
      name: "mail_sent_total",
      labels: { kind: "missed_message", outcome: "failed" },
    },
    logLines: /missed-message|notify\.email/,
  };
}

/**
 * Push: every device of the user gets the message once, the legacy tokens
 * through push/notify (told apart by the payload's message id), the E2EE
 * device through push/e2ee/notify (the id inside what only it can open).
 */
export function pushWay(bouncer: TestBouncer, users: AwayUser[]): MissedMessageWay {
  const e2eeDeviceId = (user: AwayUser) => bouncer.devices.find((d) => d.token === user.e2eeToken)?.deviceId;
  return {
    done: "pushed",
    fail: () => bouncer.failNext(FAILURES_EACH_TIME),
    failures: () => bouncer.failed,
    destinations: (dm) => [
      `fcm ${dm.to.fcmToken} ${dm.id}`,
      `apns ${dm.to.apnsToken} ${dm.id}`,
      `e2ee ${e2eeDeviceId(dm.to)} ${dm.id}`,
    ],
    arrivals: () => {
      const counts = new Map<string, number>();
      for (const body of bouncer.accepted("push/notify")) {
        const gcm = body.gcm_payload as { event?: string; zulip_message_id?: number };
        const apns = body.apns_payload as { custom?: { zulip?: { message_ids?: number[] } } };
        if (gcm.event !== "message") continue;
        for (const token of body.android_devices as string[]) count(counts, `fcm ${token} ${gcm.zulip_message_id}`);
        for (const token of body.apple_devices as string[]) {
          count(counts, `apns ${token} ${apns.custom?.zulip?.message_ids?.[0]}`);
        }
      }
      const openers = new Map(users.map((u) => [e2eeDeviceId(u), u.e2eeDevice]));
      for (const body of bouncer.accepted("push/e2ee/notify")) {
        for (const r of body.push_requests as Array<{ device_id: number; payload: { encrypted_data: string } }>) {
          const data = openers.get(r.device_id)?.open(r.payload.encrypted_data) as {
            type?: string;
            message_id?: number;
          };
          if (data?.type === "message") count(counts, `e2ee ${r.device_id} ${data.message_id}`);
        }
      }
      return counts;
    },
    failureMetric: { service: "identity", name: "push_bouncer_requests_total", labels: { outcome: "retry_later" } },
    logLines: /push/i,
  };
}

const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** When each address received each direct message (its token in the text), by destination. */
function mailTimes(smtp: TestSmtpServer): Map<string, number[]> {
  const times = new Map<string, number[]>();
  for (const mail of smtp.received) {
    for (const to of mail.to) {
      for (const word of mail.text.split(/\s+/)) {
        if (/^dm\d+-\d+$/.test(word)) times.set(`${to} ${word}`, [...(times.get(`${to} ${word}`) ?? []), mail.at]);
      }
    }
  }
  return times;
}

/** Waits until every acknowledged direct message arrived every way it goes (2 minutes at most). */
export async function awaitArrivals(ways: MissedMessageWay[], dms: AwayDm[]): Promise<void> {
  const arrived = () =>
    ways.every((way) => {
      const counts = way.arrivals();
      return dms.every((dm) => way.destinations(dm).every((d) => counts.has(d)));
    });
  for (const deadline = Date.now() + 120_000; !arrived() && Date.now() < deadline;) await sleep(1000);
  // what a late retry would still send twice
  await sleep(3_000);
}

/**
 * A counter's total over every instance of a service since the start: the
 * instances' counters start again at zero when they are killed, so each is
 * read just before its kill and banked.
 */
export class CounterTotals {
  private readonly banked = new Map<MissedMessageWay, number>();
  constructor(
    private readonly cluster: Cluster,
    private readonly ways: MissedMessageWay[],
  ) {}

  /** Reads the instance's counters before it is killed. */
  async bank(victim: Instance): Promise<void> {
    for (const way of this.ways) {
      if (way.failureMetric.service !== victim.service) continue;
      this.banked.set(way, (this.banked.get(way) ?? 0) + (await this.read(way, victim)));
    }
  }

  /** The banked counts and what the running instances show now. */
  async total(way: MissedMessageWay): Promise<number> {
    const running = this.cluster.instances.filter((i) => i.service === way.failureMetric.service);
    const now = await Promise.all(running.map((i) => this.read(way, i)));
    return now.reduce((a, b) => a + b, this.banked.get(way) ?? 0);
  }

  /** The sum of the counter's series with the way's labels (0 when the instance does not answer). */
  private async read(way: MissedMessageWay, instance: Instance): Promise<number> {
    const { name, labels } = way.failureMetric;
    const text = await fetch(this.cluster.metricsUrl(instance), { signal: AbortSignal.timeout(2_000) })
      .then((r) => r.text())
      .catch(() => "");
    return text
      .split("\n")
      .filter((line) => line.startsWith(`teamchat_${name}{`))
      .filter((line) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
  }
}

/** One way's outcome: a line for the report and what must not happen. */
export async function countArrivals(
  way: MissedMessageWay,
  dms: AwayDm[],
  totals: CounterTotals,
): Promise<{
  way: MissedMessageWay;
  line: string;
  missing: AwayDm[];
  twice: string[];
  problems: Array<string | false>;
}> {
  const counts = way.arrivals();
  const destinations = dms.flatMap((dm) => way.destinations(dm));
  const missing = destinations.filter((d) => !counts.has(d));
  const missingDms = dms.filter((dm) => way.destinations(dm).some((d) => !counts.has(d)));
  const twice = destinations.filter((d) => (counts.get(d) ?? 0) > 1);
  const failures = way.failures();
  const inMetrics = await totals.total(way);
  const metric = `teamchat_${way.failureMetric.name}{${Object.entries(way.failureMetric.labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",")}}`;
  return {
    way,
    missing: missingDms,
    twice,
    line: `${way.done}: ${destinations.length} expected, ${counts.size} arrived; not ${way.done} ${missing.length}, ${way.done} twice ${twice.length}; the server failed ${failures} requests, ${metric} counts ${inMetrics}`,
    problems: [
      missing.length > 0 &&
        `${missing.length} acknowledged direct messages never ${way.done} (${missing.slice(0, 5).join(", ")})`,
      twice.length > 0 && `${twice.length} direct messages ${way.done} twice (${twice.slice(0, 5).join(", ")})`,
      failures > 0 && inMetrics === 0 && `the server failed ${failures} requests, and ${metric} shows none`,
    ],
  };
}
