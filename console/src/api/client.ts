// The one way the console talks to the API: POST operations typed from the generated
// OpenAPI types, so a route whose body or answer changes breaks this build, not a user.
import type { paths } from './schema.d.ts';

type PostPath = { [P in keyof paths]: paths[P] extends { post: { requestBody?: { content: { 'application/json': unknown } } } } ? P : never }[keyof paths];
export type Body<P extends PostPath> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
export type Data<P extends PostPath> = paths[P] extends { post: { responses: { 200: { content: { 'application/json': { data: infer D } } } } } } ? D : never;

export type FieldError = { path: string; message: string };

/** A refusal in the API's envelope: its code, its message and the bad fields. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: FieldError[];
  constructor(status: number, code: string, message: string, details: FieldError[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
  /** The message with each bad field, for a notification. */
  describe(): string {
    return this.details.length ? `${this.message} ${this.details.map((d) => `${d.path}: ${d.message}`).join('; ')}` : this.message;
  }
}

const TOKEN_KEY = 'billrun.session';
export type Role = 'admin' | 'biller' | 'viewer';
export type Session = { token: string; email: string; appCode: number; role: Role; expiresAt: string };

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(TOKEN_KEY) ?? 'null') as Session | null;
    return s && new Date(s.expiresAt).getTime() > Date.now() ? s : null;
  } catch {
    return null;
  }
}
export function saveSession(s: Session | null): void {
  if (s) localStorage.setItem(TOKEN_KEY, JSON.stringify(s));
  else localStorage.removeItem(TOKEN_KEY);
}

let onUnauthenticated: () => void = () => {};
/** Called when the API says the token is no longer good (expired, logged out). */
export function setUnauthenticatedHandler(fn: () => void): void {
  onUnauthenticated = fn;
}

async function answer(res: Response): Promise<unknown> {
  const text = await res.text();
  let body: { success?: boolean; data?: unknown; message?: string; error?: { code: string; details?: FieldError[] } } | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.ok && body?.success) return body.data;
  if (res.status === 401) onUnauthenticated();
  throw new ApiError(res.status, body?.error?.code ?? 'HTTP_' + res.status, body?.message ?? `The server answered ${res.status}.`, body?.error?.details ?? []);
}

function authHeaders(): Record<string, string> {
  const s = loadSession();
  return s ? { authorization: s.token } : {};
}

/** One business operation: the whole typed body in, its typed data and the answer's headers out. */
export async function call<P extends PostPath>(path: P, body: Body<P>, headers: Record<string, string> = {}): Promise<{ data: Data<P>; headers: Headers }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders(), ...headers },
    body: JSON.stringify(body),
  });
  const data = (await answer(res)) as Data<P>;
  return { data, headers: res.headers };
}

/** The typed data only, for queries. */
export async function read<P extends PostPath>(path: P, body: Body<P>): Promise<Data<P>> {
  return (await call(path, body)).data;
}

/** A CSV file to the streamed import route; the import's id comes back on success and on failure. */
export async function uploadCsv(kind: 'accounts' | 'subscriptions' | 'readings', file: File, dryRun: boolean): Promise<{ importId: number | null; error: ApiError | null }> {
  const q = new URLSearchParams({ kind, apiVersion: 'v2', fileName: file.name, ...(dryRun ? { dryRun: 'true' } : {}) });
  const res = await fetch(`/billing/imports/upload-import?${q}`, { method: 'POST', headers: { 'content-type': 'text/csv', ...authHeaders() }, body: file });
  const id = res.headers.get('x-billrun-import-id');
  try {
    await answer(res);
    return { importId: id ? Number(id) : null, error: null };
  } catch (err) {
    if (err instanceof ApiError) return { importId: id ? Number(id) : null, error: err };
    throw err;
  }
}

/**
 * An operation that answers a file (a bill's PDF, a print extract, a preview): the bytes as a
 * Blob, or the same ApiError as any operation. Fetched with the token, never a plain link,
 * because the token is not a cookie and a link would go unauthenticated.
 */
export async function fetchFile<P extends PostPath>(path: P, body: Body<P>): Promise<{ blob: Blob; headers: Headers }> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders() }, body: JSON.stringify(body) });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || type.startsWith('application/json')) {
    await answer(res);
    throw new ApiError(res.status, 'HTTP_' + res.status, `The server answered ${res.status} with no file.`, []);
  }
  return { blob: await res.blob(), headers: res.headers };
}

export async function login(email: string, password: string): Promise<Session> {
  const { data } = await call('/auth/login', { method: 'Create', action: 'Login', apiVersion: 'v2', data: { email, password } });
  return { token: data.accessToken, email: data.user.email, appCode: data.user.appCode, role: data.user.role as Role, expiresAt: data.expiresAt };
}

export async function logout(): Promise<void> {
  await fetch('/auth/logout', { method: 'POST', headers: authHeaders() }).catch(() => {});
}
