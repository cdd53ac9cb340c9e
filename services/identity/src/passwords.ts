import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Hashes run two at a time: each holds scrypt's memory while it runs, and the default thread
 * pool's four at once drove identity's memory too high when users were created in bulk
 * (docs/adr/0020-password-hashing-cost.md).
 */
const MAX_CONCURRENT_HASHES = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  if (running < MAX_CONCURRENT_HASHES) running++;
  // a finishing hash hands its slot straight to the next in line
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

// N=2^15 (PASSWORD_HASH_COST's default, 15): slow for guessing, fine for logins (docs/adr/0020-password-hashing-cost.md).
const PARAMS = { r: 8, p: 1 };
const KEYLEN = 32;
/** scrypt takes 128 × N × r bytes, refused above this: room for the largest cost configurable (16), not more. */
const MAXMEM = 2 * 128 * 2 ** 16 * PARAMS.r;

/**
 * `scrypt$N$r$p$salt$hash` (base64), so parameters can change without breaking old hashes.
 * `cost` is log2 of scrypt's N (PASSWORD_HASH_COST).
 */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await scrypt(password, salt, KEYLEN, { ...PARAMS, N, maxmem: MAXMEM });
  return ["scrypt", N, PARAMS.r, PARAMS.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  const [algo, n, r, p, salt, hash] = stored.split("$");
  if (algo !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await scrypt(password, Buffer.from(salt, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return timingSafeEqual(key, expected);
}
