import type { Logger } from "pino";
import {
  listUnsubscribeHeaders,
  noreplyAddress,
  type MailTransport,
  type RealmRef,
  type ServiceMetrics,
} from "@teamchat/shared";
import type { UnsubscribeKeyRepository } from "../unsubscribe/unsubscribe-key.repository";
import { unsubscribeLink } from "../unsubscribe/unsubscribe-link";
import { loginDeviceOf } from "./login-device";
import { settingsOf } from "./settings";
import type { UserDoc } from "./user.schema";

/** Zulip's JUST_CREATED_THRESHOLD: a login this soon after the account was made is its creation's, not news. */
const JUST_CREATED_MS = 60_000;

/** Zulip's login_time: "Friday, November 27, 2026 at 10:02 AM UTC", in the user's time zone. */
function loginTime(at: Date, timezone: string): string {
  const zone = timezone || "UTC";
  const part = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat("en-US", { timeZone: zone, ...options }).format(at);
  const date = part({ weekday: "long", month: "long", day: "2-digit", year: "numeric" });
  const time = part({ hour: "2-digit", minute: "2-digit", hour12: true, timeZoneName: "short" });
  return `${date} at ${time}`;
}

/** Where a login came from: the request's User-Agent header and the client's address, when known. */
export interface LoginOrigin {
  userAgent: string;
  address?: string;
}

/**
 * Zulip's email_on_new_login (zerver/signals.py) for a password login: the
 * notify_new_login mail, unless the user turned enable_login_emails off or the
 * account was just made. Sent after the login is answered, which it never
 * holds up; a failure is logged and counted.
 */
export class LoginMailer {
  constructor(
    private readonly transport: MailTransport,
    private readonly unsubscribeKeys: UnsubscribeKeyRepository,
    private readonly log: Logger,
    private readonly metrics: ServiceMetrics,
  ) {}

  notify(user: UserDoc, realm: RealmRef, origin: LoginOrigin, now = new Date()): void {
    if (!settingsOf(user).enable_login_emails) return;
    if (now.getTime() - user.dateJoined.getTime() <= JUST_CREATED_MS) return;
    const { browser, os } = loginDeviceOf(origin.userAgent);
    const text = [
      "We noticed a recent login for the following Zulip account.",
      "",
      `Organization: ${realm.uri}`,
      "",
      `Email: ${user.deliveryEmail}`,
      "",
      `Time: ${loginTime(now, user.timezone)}`,
      "",
      `Device: ${browser} on ${os}.`,
      "",
      `IP address: ${origin.address || "Unknown IP address"}`,
      "",
      "",
      "If this was you, great! There's nothing else you need to do.",
      "",
      `If you do not recognize this login, or think your account may have been compromised, please reset your password at ${realm.uri}/accounts/password/reset/ or contact us immediately at ${noreplyAddress(realm.host)}.`,
      "",
      "",
      "Thanks,",
      "Zulip Security",
      "",
    ].join("\n");
    const send = async () => {
      const unsubscribeUrl = await unsubscribeLink(this.unsubscribeKeys, realm, user.userId, "login");
      await this.transport.send({
        to: user.deliveryEmail,
        from: `Zulip Account Security <${noreplyAddress(realm.host)}>`,
        subject: `New login from ${browser} on ${os}`,
        text,
        headers: listUnsubscribeHeaders(unsubscribeUrl),
        fileName: `login-${realm.id}-${user.userId}-${now.getTime()}`,
      });
    };
    send().then(
      () => this.metrics.mailSent.inc({ kind: "login", outcome: "sent" }),
      (err: unknown) => {
        this.metrics.mailSent.inc({ kind: "login", outcome: "failed" });
        this.log.warn({ err, userId: user.userId }, "new-login mail not sent");
      },
    );
  }
}
