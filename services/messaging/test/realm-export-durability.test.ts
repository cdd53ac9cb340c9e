/**
 * A realm export survives the death of the instance running it: the job stays
 * in JetStream, unacknowledged, and once its claim lapses another messaging
 * instance takes it and makes the whole tarball again.
 */
import { randomBytes } from "node:crypto";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { exportThroughApi } from "../../../test/support/realm-export";
import { messaging } from "@teamchat/shared";

const CLAIM_SECONDS = 2;
/** big enough that copying it into the tarball outlasts the moment the test kills the instance */
const UPLOAD_BYTES = 24 * 1024 * 1024;

let sys: TestSystem;
const logs: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  sys = await startSystem({ env: { REALM_EXPORT_CLAIM_SECONDS: String(CLAIM_SECONDS), LOG_LEVEL: "info" }, logs });
});
afterAll(() => sys?.stop());

const attemptsStarted = () => logs.filter((l) => l.msg === "realm export started").map((l) => l.attempt);

test("killed mid-export, the instance's job is finished by another", async () => {
  const bytes = randomBytes(UPLOAD_BYTES);
  const upload = await sys
    .api(sys.owner)
    .post("/user_uploads", { file: new File([bytes], "big.bin", { type: "application/octet-stream" }) }, "multipart");
  expect(upload.status).toBe(200);

  const { id } = await sys.call(messaging.exportRealm, {}, sys.owner);
  for (const giveUpAt = Date.now() + 30_000; attemptsStarted().length === 0;) {
    if (Date.now() > giveUpAt) throw new Error("the export did not start");
    await new Promise((r) => setTimeout(r, 5));
  }
  await sys.killService("messaging");
  expect(logs.filter((l) => l.msg === "realm export done")).toEqual([]);
  await sys.startService("messaging");

  const { id: doneId, files } = await exportThroughApi(sys, sys.owner, undefined, id);
  expect(doneId).toBe(id);
  expect(attemptsStarted()).toEqual([1, 2]);
  const [record] = JSON.parse(files.get("uploads/records.json")!.toString()) as Array<{ path: string; size: number }>;
  expect(record!.size).toBe(UPLOAD_BYTES);
  expect(files.get(`uploads/${record!.path}`)!.equals(bytes)).toBe(true);
}, 120_000);
