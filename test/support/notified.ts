/**
 * What the missed-message tests read and do: the mail the real SMTP server
 * received and the pushes the local bouncer received for a user, waiting for
 * them, and the channel messages that notify.
 */
import { identity, messaging } from "@teamchat/shared";
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

/** Subscribes the users to the channel (made if new, with `options`' other parameters), as the organization's owner. */
export const subscribeToChannel = (
  sys: TestSystem,
  channel: string,
  users: TestUser[],
  options: Record<string, unknown> = {},
) =>
  sys.call(
    messaging.subscribe,
    { subscriptions: [{ name: channel }], principals: users.map((u) => u.userId), ...options },
    sys.owner,
  );

/**
 * A new user who is away (no event queue, no presence) until they open a
 * client, mailed after 1 s batches, with `settings` besides.
 */
export async function awayUser(
  sys: TestSystem,
  name: string,
  settings: Record<string, unknown> = {},
): Promise<TestUser> {
  const user = await sys.makeUser(name, 400, `${name} Person`);
  await sys.call(
    identity.updateSettings,
    { email_notifications_batching_period_seconds: 1, ...settings } as never,
    user,
  );
  return user;
}

/** Registers an Android device (FCM token) for the user's pushes. */
export const addAndroidDevice = (sys: TestSystem, user: TestUser) =>
  sys.call(identity.addAndroidRegId, { token: `fcm-token-of-${user.userId}` }, user);
