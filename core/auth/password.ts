/**
 * Password hashing with argon2id. Parameters follow OWASP's recommendation for argon2id (19 MiB, 2 passes,
 * 1 lane): a few tens of milliseconds on the appliance, memory-hard for an attacker with the hash. The hash
 * string carries its parameters, so hashes made with other parameters still verify. At most two hashes run
 * at once: each takes 19 MiB, and the login limit is per IP, so many IPs must not add up to a memory spike.
 */
import argon2 from 'argon2';

export const MIN_PASSWORD_LENGTH = 12;
/** Long enough for any passphrase; bounds the work one request can cause. */
export const MAX_PASSWORD_LENGTH = 1024;

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const MAX_CONCURRENT = 2;

let running = 0;
const waiting: Array<() => void> = [];

async function limited<T>(fn: () => Promise<T>): Promise<T> {
  // A finishing call hands its slot straight to the next waiter, so the count never overshoots.
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export function hashPassword(password: string): Promise<string> {
  return limited(() => argon2.hash(password, OPTIONS));
}

/** False for a wrong password and for a hash that cannot be read (never throws on user input). */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  if (password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return false;
  try {
    return await limited(() => argon2.verify(hash, password));
  } catch {
    return false;
  }
}
