import { Schema } from "mongoose";

/** Zulip's Device (zerver/models/devices.py): a logged-in client of one user, before any push registration. */
export interface DeviceDoc {
  realmId: number;
  deviceId: number;
  userId: number;
}

export const deviceSchema = new Schema<DeviceDoc>(
  {
    realmId: { type: Number, required: true },
    deviceId: { type: Number, required: true },
    userId: { type: Number, required: true },
  },
  { collection: "devices", versionKey: false },
);
// DeviceRepository.ofUser and remove (the realmId+userId prefix); ids are unique per organization
deviceSchema.index({ realmId: 1, userId: 1, deviceId: 1 });
deviceSchema.index({ realmId: 1, deviceId: 1 }, { unique: true });
