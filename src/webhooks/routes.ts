// HTTP for webhooks (admin only): endpoints made, listed, changed, disabled, their
// secret rotated; attempts listed; events listed and replayed. docs/webhooks.md.
import { LOCAL_TIME_SPACE_PATTERN } from '../primitives.ts';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound, validationFailed } from '../errors.ts';
import { inTransaction } from '../db/pool.ts';
import { EVENT_TYPES } from '../events/types.ts';
import { queueDispatch } from '../events/dispatchQueue.ts';
import { LOCAL_TIME_MESSAGE, parseLocalTime } from '../calendar/calendar.ts';
import { refusedAddress } from './address.ts';
import { newSecret } from './signing.ts';
import {
  disableEndpoint,
  hasPending,
  insertEndpoint,
  listAttempts,
  listEndpoints,
  listEvents,
  lockEndpoint,
  replayMessages,
  rotateSecret,
  updateEndpoint,
  type EndpointView,
} from './store.ts';

const Id = Type.Integer({ minimum: 1, maximum: 9007199254740991 });
const After = Type.Integer({ minimum: 0, maximum: 9007199254740991 });
const Limit = Type.Integer({ minimum: 1, maximum: 1000 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const EventTypeSchema = Type.Enum([...EVENT_TYPES], { description: 'an event type (docs/webhooks.md)' });
const EventTypes = Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true });
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'http:// or https:// URL the events are POSTed to' });
const Description = Type.String({ maxLength: 500 });
const LocalTime = Type.String({
  pattern: LOCAL_TIME_SPACE_PATTERN,
  description: 'YYYY-MM-DD HH:MM:SS (or with a T) in the app time zone, as createdAt is written',
});
const DAY = 86400;

/** A LocalTime that names a real moment of a real day ('2026-02-30 10:00:00' does not), with a space. */
function localTime(text: string, path: string): string {
  const t = parseLocalTime(text);
  if (t === null) throw validationFailed([{ path, message: LOCAL_TIME_MESSAGE }]);
  return t.replace('T', ' ');
}

const EndpointRecord = Type.Object({
  endpointID: Type.Integer(),
  url: Type.String(),
  description: Type.String(),
  eventTypes: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String()),
  secret: Type.String({ description: "whsec_...: the key every message is signed with (Standard Webhooks)" }),
  previousSecret: Nullable(Type.String({ description: 'the key before the last rotation, still signed with until previousSecretUntil' })),
  previousSecretUntil: Nullable(Type.String()),
  failingSince: Nullable(Type.String({ description: 'first failed attempt since the last delivered one' })),
  createdAt: Type.String(),
  createdBy: Type.String(),
  modifiedAt: Type.String(),
  modifiedBy: Type.String(),
});

const view = (e: EndpointView) => {
  const overlap = e.previous_secret !== null && e.previous_secret_until !== null && e.previous_secret_until.getTime() > Date.now();
  return {
    endpointID: Number(e.endpoint_id),
    url: e.url,
    description: e.description,
    eventTypes: e.event_types,
    enabled: e.enabled,
    disabledReason: e.disabled_reason,
    secret: e.secret,
    previousSecret: overlap ? e.previous_secret : null,
    previousSecretUntil: overlap ? e.previous_until_text : null,
    failingSince: e.failing_text,
    createdAt: e.created_text,
    createdBy: e.created_by,
    modifiedAt: e.modified_text,
    modifiedBy: e.modified_by,
  };
};

/** An http(s) URL without credentials whose host is not on a forbidden address (unless allowed). */
async function checkUrl(text: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationFailed([{ path: 'data.url', message: 'is not a URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationFailed([{ path: 'data.url', message: 'must be an http:// or https:// URL' }]);
  if (url.username || url.password) throw validationFailed([{ path: 'data.url', message: 'must not carry a user name or password' }]);
  const refused = await refusedAddress(url, allowPrivate);
  if (refused) throw validationFailed([{ path: 'data.url', message: `is refused: ${refused}` }], 'The endpoint URL is refused (server-side request forgery guard).');
  return url.toString();
}

export async function webhookRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const allowPrivate = services.config.webhooksAllowPrivate;

  operation(app, services, {
    path: '/webhooks/make-endpoint',
    headers: { 'X-Billrun-Endpoint-Id': 'the new endpointID' },
    role: 'admin',
    tag: 'webhooks',
    summary: 'Make a webhook endpoint',
    description:
      'A URL that receives the events of the listed types, signed by the Standard Webhooks scheme with a new whsec_ secret (read it with get-endpoints). Endpoints on loopback, link-local, private or unspecified addresses are refused unless BILLRUN_WEBHOOKS_ALLOW_PRIVATE=1. The new endpointID is in the X-Billrun-Endpoint-Id header.',
    body: requestSchema(
      { method: 'Create', action: 'Create Webhook Endpoint' },
      {
        data: Type.Object(
          { url: Url, eventTypes: EventTypes, description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
      },
    ),
    data: Type.Object({}),
    idempotent: true,
    handler: async (body, ctx) => {
      const url = await checkUrl(body.data.url, allowPrivate);
      const id = await insertEndpoint(
        ctx.db,
        ctx.caller.appCode,
        { url, description: body.data.description ?? '', eventTypes: body.data.eventTypes, enabled: body.data.enabled ?? true, secret: newSecret() },
        ctx.caller.email,
      );
      ctx.reply.header('x-billrun-endpoint-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/webhooks/get-endpoints',
    role: 'admin',
    tag: 'webhooks',
    summary: 'List webhook endpoints',
    description: "The app's endpoints (or one), with their secrets: during a rotation's overlap the previous one too.",
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Webhook Endpoints' }, { data: Type.Object({ endpointID: Type.Optional(Id) }, { additionalProperties: false }) }),
    data: Type.Object({ endpoints: Type.Array(EndpointRecord) }),
    handler: async (body, ctx) => ({ endpoints: (await listEndpoints(ctx.db, ctx.caller.appCode, body.data.endpointID)).map(view) }),
  });

  operation(app, services, {
    path: '/webhooks/update-endpoint',
    role: 'admin',
    tag: 'webhooks',
    summary: 'Change a webhook endpoint',
    description:
      'Its URL (checked as when made), event types, description, or enabled. Enabling a disabled endpoint sends what it is owed (messages kept pending while it was disabled) and starts its failing streak over.',
    body: requestSchema(
      { method: 'Update', action: 'Update Webhook Endpoint' },
      {
        data: Type.Object(
          { endpointID: Id, url: Type.Optional(Url), eventTypes: Type.Optional(EventTypes), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
      },
    ),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      const d = body.data;
      const url = d.url === undefined ? undefined : await checkUrl(d.url, allowPrivate);
      await inTransaction(ctx.db, async (tx) => {
        const e = await lockEndpoint(tx, ctx.caller.appCode, d.endpointID);
        if (!e) throw notFound('webhook endpoint', 'data.endpointID');
        const enabled = d.enabled ?? e.enabled;
        await updateEndpoint(tx, e.endpoint_id, { url: url ?? e.url, description: d.description ?? e.description, eventTypes: d.eventTypes ?? e.event_types, enabled }, ctx.caller.email);
        if (enabled && (await hasPending(tx, e.endpoint_id))) await queueDispatch(tx, [e.endpoint_id]);
      });
      return {};
    },
  });

  operation(app, services, {
    path: '/webhooks/disable-endpoint',
    role: 'admin',
    tag: 'webhooks',
    summary: 'Disable a webhook endpoint',
    description: 'No message is sent to it until update-endpoint enables it again; what it is owed meanwhile is kept and sent then.',
    body: requestSchema(
      { method: 'Update', action: 'Disable Webhook Endpoint' },
      { data: Type.Object({ endpointID: Id, reason: Type.Optional(Description) }, { additionalProperties: false }) },
    ),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      await inTransaction(ctx.db, async (tx) => {
        const e = await lockEndpoint(tx, ctx.caller.appCode, body.data.endpointID);
        if (!e) throw notFound('webhook endpoint', 'data.endpointID');
        await disableEndpoint(tx, e.endpoint_id, body.data.reason ?? `disabled by ${ctx.caller.email}`, ctx.caller.email);
      });
      return {};
    },
  });

  operation(app, services, {
    path: '/webhooks/rotate-secret',
    role: 'admin',
    tag: 'webhooks',
    summary: 'Rotate the secret of a webhook endpoint',
    description:
      'A new whsec_ secret signs from now on; the old one stays valid, and every message is signed with both, for overlapSeconds (default 86400, a day; 0 ends it at once). Read the new one with get-endpoints.',
    body: requestSchema(
      { method: 'Update', action: 'Rotate Webhook Secret' },
      { data: Type.Object({ endpointID: Id, overlapSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * DAY })) }, { additionalProperties: false }) },
    ),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      await inTransaction(ctx.db, async (tx) => {
        const e = await lockEndpoint(tx, ctx.caller.appCode, body.data.endpointID);
        if (!e) throw notFound('webhook endpoint', 'data.endpointID');
        await rotateSecret(tx, e.endpoint_id, newSecret(), body.data.overlapSeconds ?? DAY, ctx.caller.email);
      });
      return {};
    },
  });

  operation(app, services, {
    path: '/webhooks/get-attempts',
    role: 'admin',
    tag: 'webhooks',
    summary: 'List the delivery attempts of a webhook endpoint',
    description: 'Every HTTP request made to the endpoint (or for one event), in order: outcome, status (null: no answer), latency and the first 500 characters of the answer or the error. 1000 at a time (afterAttemptID pages).',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Webhook Attempts' },
      { data: Type.Object({ endpointID: Id, eventID: Type.Optional(Id), afterAttemptID: Type.Optional(After), limit: Type.Optional(Limit) }, { additionalProperties: false }) },
    ),
    data: Type.Object({
      attempts: Type.Array(
        Type.Object({
          attemptID: Type.Integer(),
          eventID: Type.Integer(),
          webhookID: Type.String({ description: 'the webhook-id header sent' }),
          type: Type.String(),
          attemptedAt: Type.String(),
          outcome: Type.String({ description: 'delivered or failed' }),
          statusCode: Nullable(Type.Integer()),
          latencyMs: Type.Integer(),
          excerpt: Type.String(),
        }),
      ),
    }),
    handler: async (body, ctx) => {
      const [e] = await listEndpoints(ctx.db, ctx.caller.appCode, body.data.endpointID);
      if (!e) throw notFound('webhook endpoint', 'data.endpointID');
      const rows = await listAttempts(ctx.db, ctx.caller.appCode, e.endpoint_id, { eventId: body.data.eventID, afterAttemptId: body.data.afterAttemptID, limit: body.data.limit });
      return {
        attempts: rows.map((a) => ({
          attemptID: Number(a.attempt_id),
          eventID: Number(a.event_id),
          webhookID: `evt_${a.event_id}`,
          type: a.type,
          attemptedAt: a.attempted_text,
          outcome: a.outcome,
          statusCode: a.status_code,
          latencyMs: a.latency_ms,
          excerpt: a.excerpt,
        })),
      };
    },
  });

  operation(app, services, {
    path: '/webhooks/get-events',
    role: 'admin',
    tag: 'webhooks',
    summary: 'List events',
    description: "The app's events (of one type, since a time), in order, 1000 at a time (afterEventID pages): the body each endpoint receives is { type, timestamp, data }.",
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Events' },
      {
        data: Type.Object(
          { type: Type.Optional(EventTypeSchema), since: Type.Optional(LocalTime), afterEventID: Type.Optional(After), limit: Type.Optional(Limit) },
          { additionalProperties: false },
        ),
      },
    ),
    data: Type.Object({
      events: Type.Array(
        Type.Object({
          eventID: Type.Integer(),
          webhookID: Type.String(),
          type: Type.String(),
          orderKey: Type.String({ description: 'events of one key reach an endpoint in order (term:12, bill:40, ...)' }),
          createdAt: Type.String(),
          timestamp: Type.String({ description: 'createdAt in UTC, ISO 8601, as in the body sent' }),
          data: Type.Record(Type.String(), Type.Unknown()),
        }),
      ),
    }),
    handler: async (body, ctx) => ({
      events: (await listEvents(ctx.db, ctx.caller.appCode, { type: body.data.type, since: body.data.since === undefined ? undefined : localTime(body.data.since, 'data.since'), afterEventId: body.data.afterEventID, limit: body.data.limit })).map(
        (e) => ({
          eventID: Number(e.event_id),
          webhookID: `evt_${e.event_id}`,
          type: e.type,
          orderKey: e.order_key,
          createdAt: e.created_text,
          timestamp: e.created_iso,
          data: e.data,
        }),
      ),
    }),
  });

  const replay = async (appCode: number, endpointID: number, filter: { eventId?: number; since?: string; types?: string[] | null }) => {
    return inTransaction(services.db, async (tx) => {
      const e = await lockEndpoint(tx, appCode, endpointID);
      if (!e) throw notFound('webhook endpoint', 'data.endpointID');
      const n = await replayMessages(tx, e, filter);
      if (n > 0 && e.enabled) await queueDispatch(tx, [e.endpoint_id]);
      return n;
    });
  };

  operation(app, services, {
    path: '/webhooks/replay-event',
    role: 'admin',
    tag: 'webhooks',
    summary: 'Send an event to a webhook endpoint again',
    description: 'Whatever its type and whatever became of it before: the same webhook-id, so a receiver that keeps ids sees a repeat.',
    body: requestSchema({ method: 'Update', action: 'Replay Webhook Event' }, { data: Type.Object({ endpointID: Id, eventID: Id }, { additionalProperties: false }) }),
    data: Type.Object({ messages: Type.Integer({ description: 'messages queued (1)' }) }),
    handler: async (body, ctx) => {
      const n = await replay(ctx.caller.appCode, body.data.endpointID, { eventId: body.data.eventID });
      if (n === 0) throw notFound('event', 'data.eventID');
      return { messages: n };
    },
  });

  operation(app, services, {
    path: '/webhooks/replay-since',
    role: 'admin',
    tag: 'webhooks',
    summary: 'Send the events since a time to a webhook endpoint again',
    description:
      "Every event of the app since `since` (app time zone) of the endpoint's event types (or of eventTypes), delivered or not before, in order. Per-bill events exist only for postings made while an endpoint subscribed to them (docs/webhooks.md).",
    body: requestSchema(
      { method: 'Update', action: 'Replay Webhook Events' },
      { data: Type.Object({ endpointID: Id, since: LocalTime, eventTypes: Type.Optional(EventTypes) }, { additionalProperties: false }) },
    ),
    data: Type.Object({ messages: Type.Integer({ description: 'messages queued' }) }),
    handler: async (body, ctx) => {
      const [e] = await listEndpoints(ctx.db, ctx.caller.appCode, body.data.endpointID);
      if (!e) throw notFound('webhook endpoint', 'data.endpointID');
      const n = await replay(ctx.caller.appCode, body.data.endpointID, { since: localTime(body.data.since, 'data.since'), types: body.data.eventTypes ?? e.event_types });
      return { messages: n };
    },
  });
}
