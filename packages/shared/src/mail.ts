import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTransport, type Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { Config } from "./config";

/** One mail the server sends: invitations, missed messages, new logins, digests. */
export interface OutgoingMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html?: string;
  /** headers besides From, To, Subject and Date */
  headers?: Record<string, string>;
  /** the development transport's file name (without `.eml`); a unique one when unset */
  fileName?: string;
}

/** How mail leaves the server: SMTP when configured, else files in a directory (development and tests). */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** SMTP through nodemailer. */
export class SmtpMailTransport implements MailTransport {
  constructor(private readonly transporter: Transporter) {}

  async send(mail: OutgoingMail): Promise<void> {
    await this.transporter.sendMail({
      to: mail.to,
      from: mail.from,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html !== undefined && { html: mail.html }),
      ...(mail.headers && { headers: mail.headers }),
    });
  }

  close(): void {
    this.transporter.close();
  }
}

/** The development transport: each mail is a file `<fileName>.eml` in `dir`, headers then the text. */
export class DirectoryMailTransport implements MailTransport {
  constructor(
    private readonly dir: string,
    private readonly log: Logger,
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const name = mail.fileName ?? `${Date.now()}-${randomBytes(4).toString("hex")}`;
    const file = join(this.dir, `${name}.eml`);
    const headers = [
      `From: ${mail.from}`,
      `To: ${mail.to}`,
      `Subject: ${mail.subject}`,
      `Date: ${new Date().toUTCString()}`,
      ...Object.entries(mail.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    ];
    await writeFile(file, `${headers.join("\n")}\n\n${mail.text}`);
    this.log.info({ to: mail.to, subject: mail.subject, file }, "mail written");
  }

  close(): void {}
}

/** SMTP_TLS: how the SMTP connection is secured (nodemailer's secure, requireTLS and ignoreTLS). */
const TLS_OPTIONS = {
  implicit: { secure: true },
  starttls: { secure: false, requireTLS: true },
  opportunistic: { secure: false },
  none: { secure: false, ignoreTLS: true },
} as const;

export type MailConfig = Pick<
  Config,
  | "SMTP_URL"
  | "SMTP_HOST"
  | "SMTP_PORT"
  | "SMTP_USER"
  | "SMTP_PASSWORD"
  | "SMTP_TLS"
  | "INVITATION_MAIL_DIR"
  | "TEAMCHAT_DATA_DIR"
>;

/** SMTP_URL, else SMTP_HOST and its settings, else the development transport in the mail directory. */
export function mailTransportFromConfig(config: MailConfig, log: Logger): MailTransport {
  if (config.SMTP_URL) return new SmtpMailTransport(createTransport(config.SMTP_URL));
  if (config.SMTP_HOST) {
    return new SmtpMailTransport(
      createTransport({
        host: config.SMTP_HOST,
        port: config.SMTP_PORT,
        ...TLS_OPTIONS[config.SMTP_TLS],
        ...(config.SMTP_USER && { auth: { user: config.SMTP_USER, pass: config.SMTP_PASSWORD ?? "" } }),
      }),
    );
  }
  return new DirectoryMailTransport(
    config.INVITATION_MAIL_DIR ?? join(config.TEAMCHAT_DATA_DIR, "invitation-mail"),
    log,
  );
}

/**
 * The headers of a mail whose kind a user may turn off (Zulip's build_email):
 * List-Unsubscribe names its one-click link, and List-Unsubscribe-Post lets a
 * mail client's "Unsubscribe" button post to it (RFC 8058).
 */
export const listUnsubscribeHeaders = (url: string): Record<string, string> => ({
  "List-Unsubscribe": `<${url}>`,
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
});

/** Zulip's FromAddress.NOREPLY: `noreply@` the organization's host name. */
export const noreplyAddress = (realmHost: string): string => `noreply@${realmHost.split(":")[0]}`;
