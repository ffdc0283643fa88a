// Users through the admin API, end to end over HTTP: listed, made, given a role, disabled
// and enabled, their password reset; the last active admin kept; every change in the audit
// log in the same transaction; another app's users and audit log out of reach.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, PASSWORD, type Harness } from '../support/harness.ts';
import { updateUser } from '../../src/admin/users.ts';

const body = (method: string, action: string, data?: unknown) => ({ method, action, apiVersion: 'v2', ...(data === undefined ? {} : { data }) });
/** Every admin operation with a valid body (a role that may not must hear 403, not about the body). */
const ROUTES: [string, string, string, Record<string, unknown> | undefined][] = [
  ['/admin/get-app', 'Retrieve', 'Retrieve App', undefined],
  ['/admin/update-app', 'Update', 'Update App', { name: 'Taken over' }],
  ['/admin/set-clock', 'Update', 'Set Clock', { days: 1 }],
  ['/admin/get-users', 'Retrieve', 'Retrieve Users', {}],
  ['/admin/make-user', 'Create', 'Create User', { email: 'sneaky@a.test', password: 'long enough pw', role: 'admin' }],
  ['/admin/update-user', 'Update', 'Update User', { userID: 1, role: 'admin' }],
  ['/admin/reset-password', 'Update', 'Reset Password', { userID: 1, password: 'long enough pw' }],
  ['/admin/get-audit-log', 'Retrieve', 'Retrieve Audit Log', {}],
];

describe('users through the admin API', () => {
  let h: Harness;
  const idOf = async (email: string) => Number((await h.db.query('SELECT user_id FROM app_user WHERE email = $1', [email])).rows[0].user_id);
  const users = (data: Record<string, unknown> = {}, token?: string) => h.post('/admin/get-users', body('Retrieve', 'Retrieve Users', data), token);
  const makeUser = (data: Record<string, unknown>, token?: string) => h.post('/admin/make-user', body('Create', 'Create User', data), token);
  const updateUserApi = (data: Record<string, unknown>, token?: string) => h.post('/admin/update-user', body('Update', 'Update User', data), token);
  const reset = (data: Record<string, unknown>, token?: string) => h.post('/admin/reset-password', body('Update', 'Reset Password', data), token);
  const audit = (data: Record<string, unknown> = {}, token?: string) => h.post('/admin/get-audit-log', body('Retrieve', 'Retrieve Audit Log', data), token);
  const session = (token: string) => h.post('/auth/get-session', body('Retrieve', 'Retrieve Session'), token);
  const auditCount = async () => Number((await h.db.query('SELECT count(*) AS n FROM audit_log')).rows[0].n);

  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('biller and viewer may not call any admin operation; no token is 401', async () => {
    // Every /admin/ operation of the OpenAPI document is in the list: a new one cannot slip past.
    const doc = (await h.request('GET', '/openapi.json')).body;
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/admin/')).sort(), ROUTES.map((r) => r[0]).sort());
    const before = await h.db.query('SELECT * FROM app_user ORDER BY user_id');
    for (const [path, method, action, data] of ROUTES) {
      for (const token of [h.tokens.biller, h.tokens.viewer]) {
        const r = await h.post(path, body(method, action, data), token);
        assert.equal(r.status, 403, `${path}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'FORBIDDEN');
      }
      const none = await h.request('POST', path, { body: body(method, action, data) });
      assert.equal(none.status, 401, path);
    }
    assert.equal(await auditCount(), 0);
    assert.deepEqual((await h.db.query('SELECT * FROM app_user ORDER BY user_id')).rows, before.rows);
  });

  test("get-users lists the app's own users, paged; another app sees only its own", async () => {
    const a = await users({ limit: 2 });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(a.body.data.paging, { limit: 2, offset: 0, total: 3 });
    assert.deepEqual(a.body.data.users.map((u: { email: string }) => u.email), ['admin@a.test', 'biller@a.test']);
    const page2 = await users({ limit: 2, offset: 2 });
    assert.deepEqual(page2.body.data.users.map((u: { email: string; role: string; disabled: boolean }) => [u.email, u.role, u.disabled]), [['viewer@a.test', 'viewer', false]]);
    assert.match(page2.body.data.users[0].createdAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const b = await users({}, h.tokens.otherAdmin);
    assert.deepEqual(b.body.data.users.map((u: { email: string }) => u.email), ['admin@b.test']);
    // App A's user named by id or e-mail from app B: exactly what a missing one gives.
    const theirs = await users({ userID: await idOf('viewer@a.test') }, h.tokens.otherAdmin);
    const missing = await users({ userID: 999999 }, h.tokens.otherAdmin);
    assert.deepEqual(theirs.body, missing.body);
    assert.deepEqual((await users({ email: 'viewer@a.test' }, h.tokens.otherAdmin)).body.data.users, []);
  });

  test('make-user: a new user who can log in, with its id in a header; bad or duplicate ones change nothing', async () => {
    const before = await auditCount();
    const weak = await makeUser({ email: 'new@a.test', password: 'short', role: 'viewer' });
    assert.equal(weak.status, 400);
    assert.deepEqual(weak.body.error.details, [{ path: 'data.password', message: 'must be at least 8 characters' }]);
    for (const blank of ['        ', ' \t\n  \u00a0\u3000  ', '\u200b'.repeat(8), '\u2060\ufeff\u200b\u200c\u200d\u2060\u2060\u2060']) {
      const spaces = await makeUser({ email: 'new@a.test', password: blank, role: 'viewer' });
      assert.equal(spaces.status, 400, JSON.stringify(blank));
      assert.deepEqual(spaces.body.error.details, [{ path: 'data.password', message: 'must not be only spaces' }]);
    }
    const badRole = await makeUser({ email: 'new@a.test', password: 'long enough pw', role: 'owner' });
    assert.equal(badRole.status, 400);
    assert.ok(badRole.body.error.details.some((d: { path: string }) => d.path === 'data.role'));
    // An e-mail logs into one app: taken in another app is a conflict too.
    const taken = await makeUser({ email: 'ADMIN@b.test', password: 'long enough pw', role: 'viewer' });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.details[0].path, 'data.email');
    assert.equal(await auditCount(), before);
    assert.equal((await h.login('new@a.test', 'long enough pw')).status, 401);

    const made = await makeUser({ email: 'new@a.test', password: 'long enough pw', role: 'viewer' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.deepEqual(made.body.data, {});
    const id = Number(made.headers.get('x-billrun-user-id'));
    assert.equal(id, await idOf('new@a.test'));
    const login = await h.login('new@a.test', 'long enough pw');
    assert.equal(login.status, 200);
    assert.deepEqual(login.body.data.user, { email: 'new@a.test', appCode: h.appCode, role: 'viewer' });
    const entry = (await audit({ action: 'user.make', limit: 1 })).body.data.entries[0];
    assert.equal(entry.target, `user:${id}`);
    assert.equal(entry.user, 'admin@a.test');
    assert.equal(entry.userID, await idOf('admin@a.test'));
    assert.equal(entry.before, null);
    assert.deepEqual(entry.after, { userID: id, email: 'new@a.test', role: 'viewer', disabled: false });
    // The idempotency key replays the first answer, header included, without a second user.
    const key = { 'idempotency-key': 'make-user-once' };
    const first = await h.post('/admin/make-user', body('Create', 'Create User', { email: 'once@a.test', password: 'long enough pw', role: 'viewer' }), h.tokens.admin, key);
    const again = await h.post('/admin/make-user', body('Create', 'Create User', { email: 'once@a.test', password: 'long enough pw', role: 'viewer' }), h.tokens.admin, key);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('x-billrun-user-id'), first.headers.get('x-billrun-user-id'));
  });

  test('a new role takes effect on the next request; disabling ends the tokens at once, for good', async () => {
    await makeUser({ email: 'clerk@a.test', password: PASSWORD, role: 'viewer' });
    const id = await idOf('clerk@a.test');
    const token = (await h.login('clerk@a.test', PASSWORD)).body.data.accessToken as string;
    assert.equal((await session(token)).body.data.user.role, 'viewer');
    const up = await updateUserApi({ userID: id, role: 'biller' });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal((await session(token)).body.data.user.role, 'biller');

    const off = await updateUserApi({ userID: id, disabled: true });
    assert.equal(off.status, 200);
    assert.equal((await session(token)).status, 401);
    assert.equal((await h.login('clerk@a.test', PASSWORD)).status, 401);
    const entry = (await audit({ target: `user:${id}`, limit: 1 })).body.data.entries[0];
    assert.equal(entry.action, 'user.update');
    assert.deepEqual([entry.before.disabled, entry.after.disabled, entry.after.role], [false, true, 'biller']);

    // Disabling a disabled user is no change: no audit entry.
    const entries = (await audit()).body.data.paging.total;
    assert.equal((await updateUserApi({ userID: id, disabled: true })).status, 200);
    assert.equal((await audit()).body.data.paging.total, entries);
    // Enabled again: a fresh login works, the old token stays ended.
    assert.equal((await updateUserApi({ userID: id, disabled: false })).status, 200);
    assert.equal((await session(token)).status, 401);
    assert.equal((await h.login('clerk@a.test', PASSWORD)).status, 200);
  });

  test('the last active admin cannot be disabled or demoted; with a second admin it can', async () => {
    const me = await idOf('admin@a.test');
    const before = await auditCount();
    for (const change of [{ role: 'biller' }, { disabled: true }, { role: 'viewer', disabled: false }]) {
      const r = await updateUserApi({ userID: me, ...change });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'INVALID_STATE');
      assert.match(r.body.error.details[0].path, /^data\.(role|disabled)$/);
    }
    assert.equal(await auditCount(), before);
    assert.equal((await users({ userID: me })).body.data.users[0].role, 'admin');

    // A disabled admin is not an active one: it does not count.
    await makeUser({ email: 'boss2@a.test', password: PASSWORD, role: 'admin' });
    const second = await idOf('boss2@a.test');
    assert.equal((await updateUserApi({ userID: second, disabled: true })).status, 200);
    assert.equal((await updateUserApi({ userID: me, role: 'biller' })).status, 409);
    assert.equal((await updateUserApi({ userID: second, disabled: false })).status, 200);

    // Two admins demoting each other at the same moment: one wins, the app keeps an admin.
    const token2 = (await h.login('boss2@a.test', PASSWORD)).body.data.accessToken as string;
    const [x, y] = await Promise.all([updateUserApi({ userID: second, role: 'viewer' }), updateUserApi({ userID: me, role: 'viewer' }, token2)]);
    // The loser is refused as the last admin (409), or, when the winner committed before it
    // was even authenticated, as no longer an admin (403).
    const statuses = [x.status, y.status].sort();
    assert.ok(statuses[0] === 200 && (statuses[1] === 409 || statuses[1] === 403), `${JSON.stringify(x.body)} ${JSON.stringify(y.body)}`);
    const admins = await h.db.query(`SELECT user_id FROM app_user WHERE app_code = $1 AND role = 'admin' AND NOT disabled`, [h.appCode]);
    assert.equal(admins.rowCount, 1);
    // Put back: app A's admin stays the harness's admin.
    if (Number(admins.rows[0].user_id) !== me) {
      assert.equal((await updateUserApi({ userID: me, role: 'admin' }, token2)).status, 200);
      assert.equal((await updateUserApi({ userID: second, role: 'viewer' })).status, 200);
    }
  });

  test('no one raises their own role (the rule stands whatever role the caller has)', async () => {
    const biller = await idOf('biller@a.test');
    await assert.rejects(
      updateUser(h.db, h.appCode, { userId: String(biller), email: 'biller@a.test', role: 'biller' }, { userID: biller, role: 'admin' }),
      (err: { code?: string }) => err.code === 'FORBIDDEN',
    );
    // Lowering one's own role is allowed (not the last admin: admin@a.test remains).
    await updateUser(h.db, h.appCode, { userId: String(biller), email: 'biller@a.test', role: 'biller' }, { userID: biller, role: 'viewer' });
    assert.equal((await users({ userID: biller })).body.data.users[0].role, 'viewer');
    assert.equal((await updateUserApi({ userID: biller, role: 'biller' })).status, 200);
  });

  test("reset-password: the new password works, the user's sessions end, the caller's own stays", async () => {
    const viewer = await idOf('viewer@a.test');
    const weak = await reset({ userID: viewer, password: '1234567' });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.error.details[0].path, 'data.password');
    assert.equal((await session(h.tokens.viewer)).status, 200);
    const r = await reset({ userID: viewer, password: 'a brand new secret' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await session(h.tokens.viewer)).status, 401);
    assert.equal((await h.login('viewer@a.test', PASSWORD)).status, 401);
    assert.equal((await h.login('viewer@a.test', 'a brand new secret')).status, 200);
    // Resetting one's own: the caller's token is kept.
    const me = await idOf('admin@a.test');
    assert.equal((await reset({ userID: me, password: PASSWORD })).status, 200);
    assert.equal((await session(h.tokens.admin)).status, 200);
    const entry = (await audit({ action: 'user.reset-password', target: `user:${viewer}` })).body.data.entries[0];
    assert.equal(entry.after.sessionsEnded, 1);
  });

  test("app B cannot touch app A's users: their ids answer as missing ones and nothing changes", async () => {
    const viewer = await idOf('viewer@a.test');
    const before = await h.db.query('SELECT * FROM app_user ORDER BY user_id');
    const auditBefore = await auditCount();
    for (const [send, data] of [
      [updateUserApi, { role: 'admin' }],
      [updateUserApi, { disabled: true }],
      [reset, { password: 'taken over!' }],
    ] as const) {
      const theirs = await send({ userID: viewer, ...data }, h.tokens.otherAdmin);
      const missing = await send({ userID: 987654, ...data }, h.tokens.otherAdmin);
      assert.equal(theirs.status, 404);
      assert.deepEqual(theirs.body, missing.body);
      assert.equal(theirs.body.error.details[0].path, 'data.userID');
    }
    assert.deepEqual((await h.db.query('SELECT * FROM app_user ORDER BY user_id')).rows, before.rows);
    assert.equal(await auditCount(), auditBefore);
  });

  test("the audit log: newest first, paged, never a password or hash, and app B's shows nothing of A's", async () => {
    const all = await audit({ limit: 1000 });
    assert.equal(all.status, 200);
    const entries = all.body.data.entries as { auditID: number; at: string; action: string }[];
    assert.ok(entries.length >= 8);
    assert.equal(all.body.data.paging.total, entries.length);
    assert.deepEqual(entries.map((e) => e.auditID), [...entries.map((e) => e.auditID)].sort((x, y) => y - x));
    assert.match(entries[0]!.at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const text = JSON.stringify(all.body);
    assert.ok(!/scrypt|password_hash|brand new secret|correct horse/.test(text), 'no password in the audit log');
    const page = await audit({ limit: 2, offset: 1 });
    assert.deepEqual(page.body.data.entries, all.body.data.entries.slice(1, 3));
    const b = await audit({}, h.tokens.otherAdmin);
    assert.equal(b.status, 200);
    assert.deepEqual(b.body.data.entries, []);
    assert.equal(b.body.data.paging.total, 0);
  });
});
