// What each role may do, in one table: admin sets up tariffs and users, biller runs
// the billing, viewer only reads.
export const ROLES = ['admin', 'biller', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = Object.freeze({ viewer: 0, biller: 1, admin: 2 });

export function roleAllows(actual: Role, needed: Role): boolean {
  return RANK[actual] >= RANK[needed];
}

export type Caller = {
  userId: string;
  appCode: number;
  email: string;
  role: Role;
  tokenHash: Buffer;
};
