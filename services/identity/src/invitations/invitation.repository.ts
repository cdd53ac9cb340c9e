import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { invitationSchema, type InvitationDoc } from "./invitation.schema";

export type NewInvitation = Omit<InvitationDoc, "realmId" | "inviteId" | "status" | "emailKey" | "sentCount">;

export class InvitationRepository extends TenantRepository<InvitationDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<InvitationDoc>("Invitation", invitationSchema));
  }

  async insert(realmId: number, invitation: NewInvitation): Promise<InvitationDoc> {
    const inviteId = await this.ids.next(invitation.isMultiuse ? "multiuse_invite" : "invite");
    return this.insertOne({
      ...invitation,
      realmId,
      inviteId,
      emailKey: invitation.email?.toLowerCase() ?? null,
      status: "active",
      sentCount: invitation.lastSentAt ? 1 : 0,
    });
  }

  byId(realmId: number, isMultiuse: boolean, inviteId: number): Promise<InvitationDoc | null> {
    return this.findOne(realmId, { isMultiuse, inviteId });
  }

  byKey(realmId: number, key: string): Promise<InvitationDoc | null> {
    return this.findOne(realmId, { key });
  }

  /** Invitations neither used up nor revoked (expired ones included), oldest first. */
  active(realmId: number): Promise<InvitationDoc[]> {
    return this.find(realmId, { status: "active" }, { sort: { invitedAt: 1 } });
  }

  /** Mails sent since `since`: an upper bound as Zulip's estimate_recent_invites (a resend counts its invitation's earlier sends too). */
  async sentSince(realmId: number, since: Date): Promise<number> {
    const recent = await this.find(realmId, { lastSentAt: { $gte: since } });
    return recent.reduce((n, inv) => n + inv.sentCount, 0);
  }

  async recordSent(realmId: number, inviteId: number, at: Date): Promise<void> {
    await this.updateOne(
      realmId,
      { isMultiuse: false, inviteId },
      { $set: { lastSentAt: at }, $inc: { sentCount: 1 } },
    );
  }

  /** Ends an active invitation; false when it was no longer active (used or revoked meanwhile). */
  async end(realmId: number, isMultiuse: boolean, inviteId: number, status: "used" | "revoked"): Promise<boolean> {
    return (await this.updateOne(realmId, { isMultiuse, inviteId, status: "active" }, { $set: { status } })) === 1;
  }

  /** Revokes every active invitation a user made (Zulip's revoke_invites_generated_by_user); how many. */
  async revokeFrom(realmId: number, referrerId: number): Promise<number> {
    return this.updateMany(realmId, { referrerId, status: "active" }, { $set: { status: "revoked" } });
  }

  /** Revokes the address's other active email invitations (Zulip does when an account is created for it). */
  async revokeOthersFor(realmId: number, emailKey: string): Promise<void> {
    await this.updateMany(realmId, { isMultiuse: false, emailKey, status: "active" }, { $set: { status: "revoked" } });
  }
}
