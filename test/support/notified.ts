/**
 * What the missed-message tests read and do: the mail the real SMTP server
 * received and the pushes the local bouncer received for a user, waiting for
 * them, and the channel messages that notify.
 */
import { messaging } from "@teamchat/shared";
import type { TestUser } from "./organization";
import type { TestBouncer } from "./push-bouncer";
import type { ReceivedMail, TestSmtpServer } from "./smtp";
import type { TestSystem } from "./system";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `read()` every 100 ms until `done` holds or `timeoutMs` passes; the last
 * value either way, so that the test's expectation says what was wrong.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
  }
}

export const mailsTo = (smtp: TestSmtpServer, user: TestUser): ReceivedMail[] =>
  smtp.received.filter((m) => m.to.includes(user.email));

/** The FCM payloads of the legacy pushes to the user. */
export const pushesTo = (bouncer: TestBouncer, user: TestUser) =>
  bouncer.requests
    .filter((r) => r.endpoint === "push/notify" && r.body.user_id === user.userId)
    .map((r) => r.body.gcm_payload as Record<string, unknown>);

export const postToChannel = async (sys: TestSystem, from: TestUser, channel: string, topic: string, content: string) =>
  (await sys.call(messaging.sendMessage, { type: "stream", to: channel, topic, content }, from)).id;

/** Subscribes the users to the channel (made if new), as the organization's owner. */
export const subscribeToChannel = (sys: TestSystem, channel: string, users: TestUser[]) =>
  sys.call(
    messaging.subscribe,
    { subscriptions: [{ name: channel }], principals: users.map((u) => u.userId) },
    sys.owner,
  );
