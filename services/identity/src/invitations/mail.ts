import type { Logger } from "pino";
import type { MailTransport, ServiceMetrics } from "@teamchat/shared";

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

/** How invitation mail leaves the server. */
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
 * Invitation mail through the server's mail transport (SMTP, or files in
 * development: `<realmId>-<inviteId>-<ms>.eml`); a log line gives its accept
 * link (the link, not the key alone, is what the invitee receives).
 */
export class TransportInvitationMailer implements InvitationMailer {
  constructor(
    private readonly transport: MailTransport,
    private readonly log: Logger,
    private readonly metrics: ServiceMetrics,
  ) {}

  async send(mail: InvitationMail): Promise<void> {
    const { subject, text } = renderInvitationMail(mail);
    try {
      await this.transport.send({
        to: mail.to,
        from: mail.from,
        subject,
        text,
        fileName: `${mail.realmId}-${mail.inviteId}-${mail.sentAt.getTime()}`,
      });
    } catch (err) {
      this.metrics.mailSent.inc({ kind: "invitation", outcome: "failed" });
      throw err;
    }
    this.metrics.mailSent.inc({ kind: "invitation", outcome: "sent" });
    this.log.info({ to: mail.to, activateUrl: mail.activateUrl }, "invitation mail sent");
  }
}
