/**
 * Password hashes carry their own scrypt parameters: the cost of new hashes
 * (PASSWORD_HASH_COST) can change without locking anyone out.
 */
import { loadConfig } from "@teamchat/shared";
import { hashPassword, verifyPassword } from "../src/passwords";

it("hashes with scrypt at N = 2^cost and checks the password against it", async () => {
  const stored = await hashPassword("correct horse", 10);
  expect(stored).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  expect(await verifyPassword("correct horse", stored)).toBe(true);
  expect(await verifyPassword("correct horse!", stored)).toBe(false);
  expect(await verifyPassword("correct horse", null)).toBe(false);
});

it("checks a hash made at another cost by that hash's own parameters", async () => {
  const older = await hashPassword("battery staple", 15);
  expect(older.startsWith("scrypt$32768$")).toBe(true);
  expect(await verifyPassword("battery staple", older)).toBe(true);
  expect(await verifyPassword("battery stapler", older)).toBe(false);
});

it("hashes at cost 15 unless configured, within 10–16", () => {
  expect(loadConfig({}).PASSWORD_HASH_COST).toBe(15);
  expect(loadConfig({ PASSWORD_HASH_COST: "10" }).PASSWORD_HASH_COST).toBe(10);
  expect(() => loadConfig({ PASSWORD_HASH_COST: "9" })).toThrow();
  expect(() => loadConfig({ PASSWORD_HASH_COST: "17" })).toThrow();
});
