// The first start with no user at all creates the admin named by BILLRUN_ADMIN_EMAIL
// and BILLRUN_ADMIN_PASSWORD, in a first app, so a new install can log in at once.
import type pg from 'pg';
import { hashPassword } from '../auth/password.ts';
import { countUsers, createApp, createUser } from '../auth/store.ts';
import { inTransaction } from '../db/pool.ts';
import { FIRST_START, writeAudit } from './audit.ts';
import { auditPicture, timeZoneUnknownToDatabase } from './apps.ts';
import { ConfigError, type Config } from '../config.ts';

export async function bootstrapAdmin(db: pg.Pool, config: Config): Promise<string | undefined> {
  if (!config.adminEmail || !config.adminPassword) return undefined;
  if ((await countUsers(db)) > 0) return undefined;
  const zone = await timeZoneUnknownToDatabase(db, config.timeZone, 'BILLRUN_TIME_ZONE');
  if (zone !== null) throw new ConfigError([`${zone.path} ${zone.message}`]);
  const hash = await hashPassword(config.adminPassword);
  return inTransaction(db, async (tx) => {
    await tx.query('LOCK TABLE app_user IN EXCLUSIVE MODE');
    if ((await countUsers(tx)) > 0) return undefined;
    const appCode = await createApp(tx, 'Default', config.timeZone, config.currency, config.minorUnits);
    const userId = await createUser(tx, appCode, config.adminEmail!, hash, 'admin');
    // Administrative changes like any other: in the audit log (admin/audit.ts), as the first start.
    await writeAudit(tx, appCode, FIRST_START, 'app.make', 'app', null, await auditPicture(tx, appCode));
    await writeAudit(tx, appCode, FIRST_START, 'user.make', `user:${userId}`, null, { userID: Number(userId), email: config.adminEmail!, role: 'admin', disabled: false });
    return config.adminEmail;
  });
}
