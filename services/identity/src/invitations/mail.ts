import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";

/** One invitation mail (Zulip's zerver/emails/invitation template's context). */
export interface InvitationMail {
  realmId: number;
  inviteId: number;
  to: string;
  from: string;
  referrerName: string;
  referrerEmail: string;
  realmName: string;
  /** the accept link: `<realm url>/join/<key>/` */
  activateUrl: string;
  sentAt: Date;
}

/** How invitation mail leaves the server: pluggable (SMTP in production, files in development and tests). */
export interface InvitationMailer {
  send(mail: InvitationMail): Promise<void>;
}

/** Zulip's invitation mail: subject and plain-text body. */
export function renderInvitationMail(mail: InvitationMail): { subject: string; text: string } {
  return {
    subject: `${mail.referrerName} invited you to join ${mail.realmName}`,
    text: [
      "Hi there,",
      "",
      `${mail.referrerName} (${mail.referrerEmail}) wants you to join them in ${mail.realmName}, a team chat.`,
      "",
      "To get started, visit the link below:",
      `    ${mail.activateUrl}`,
      "",
      "Without a web page, accept it with POST /api/v1/teamchat/invitations/accept (see the server's README).",
      "",
    ].join("\n"),
  };
}

/**
 * The development transport: each mail is a file `<realmId>-<inviteId>-<ms>.eml`
 * in `dir`, and a log line gives its accept link (the link, not the key alone,
 * is what the invitee receives).
 */
export class FileInvitationMailer implements InvitationMailer {
  constructor(
    private readonly dir: string,
    private readonly log: Logger,
  ) {}

  async send(mail: InvitationMail): Promise<void> {
    const { subject, text } = renderInvitationMail(mail);
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, `${mail.realmId}-${mail.inviteId}-${mail.sentAt.getTime()}.eml`);
    const headers = [
      `From: ${mail.from}`,
      `To: ${mail.to}`,
      `Subject: ${subject}`,
      `Date: ${mail.sentAt.toUTCString()}`,
    ];
    await writeFile(file, `${headers.join("\n")}\n\n${text}`);
    this.log.info({ to: mail.to, file, activateUrl: mail.activateUrl }, "invitation mail written");
  }
}
