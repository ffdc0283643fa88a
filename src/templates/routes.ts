import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../errors.ts';
import { Code, Paging, PagingInput } from '../primitives.ts';
import { ServiceDefinition, ServiceRecord, ServiceVersion } from './schemas.ts';
import { makeService } from './makeService.ts';
import { updateService } from './updateService.ts';
import { listServices, listVersions, setArchiveStatus } from './store.ts';
import { serviceRecord, versionRecord } from './serviceRecord.ts';
import { dateText } from '../calendar/calendar.ts';

const Empty = Type.Object({});

export async function templateRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/services/make-service',
    headers: { 'X-Billrun-Service-Id': 'the new serviceID' },
    role: 'admin',
    tag: 'pricing templates',
    summary: 'Create a pricing template',
    description: 'Creates a template at version 1. Batch codes in `batches` are made if new. The new serviceID is in the X-Billrun-Service-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Package' }, { service: ServiceDefinition }),
    data: Empty,
    handler: async (body, ctx) => {
      const id = await makeService(ctx.db, ctx.caller, body.service);
      ctx.reply.header('x-billrun-service-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/services/get-services',
    role: 'viewer',
    tag: 'pricing templates',
    summary: 'List pricing templates',
    description: 'All templates of the app, or the one whose serviceCode is given (NOT_FOUND when there is none).',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Packages' }, { serviceCode: Type.Optional(Type.String({ maxLength: 64 })) }),
    data: Type.Object({ services: Type.Array(ServiceRecord) }),
    handler: async (body, ctx) => {
      const rows = await listServices(ctx.db, ctx.caller.appCode, body.serviceCode);
      if (body.serviceCode !== undefined && rows.length === 0) throw notFound('pricing template', 'serviceCode');
      return { services: rows.map(serviceRecord) };
    },
  });

  operation(app, services, {
    path: '/billing/services/get-service-versions',
    role: 'viewer',
    tag: 'pricing templates',
    summary: "A pricing template's versions",
    description:
      'Every version of the template whose serviceCode is given, newest first (limit, default 100, and offset), each with its number, when and by whom it was made, and its whole definition. NOT_FOUND when the app has no such template.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Package Versions' }, { serviceCode: Code, ...PagingInput }),
    data: Type.Object({ serviceCode: Type.String(), versions: Type.Array(ServiceVersion), paging: Paging }),
    handler: async (body, ctx) => {
      const limit = body.limit ?? 100;
      const offset = body.offset ?? 0;
      const found = await listVersions(ctx.db, ctx.caller.appCode, body.serviceCode, limit, offset);
      if (!found) throw notFound('pricing template', 'serviceCode');
      return { serviceCode: body.serviceCode, versions: found.rows.map(versionRecord), paging: { limit, offset, total: found.total } };
    },
  });

  operation(app, services, {
    path: '/billing/services/update-service',
    headers: { 'X-Billrun-Service-Version': 'the new version of the template' },
    role: 'admin',
    tag: 'pricing templates',
    summary: 'Update a pricing template',
    description:
      'Replaces the definition of the template whose code is service.code with a new version. Existing terms keep their version, unless `effectiveFrom` (dd/mm/yyyy) dates it: it is then in force from that day in every term not yet approved, whose bills are rated in segments, one per version in force. A date on or before the end of an approved or billed term is CONFLICT (effectiveFrom). Without it, the version corrects the one in force today, from the same day. The new version number is in the X-Billrun-Service-Version header.',
    body: requestSchema(
      { method: 'Update', action: 'Update Package' },
      { service: ServiceDefinition, effectiveFrom: Type.Optional(dateText("the first day the new version's prices are in force")) },
    ),
    data: Empty,
    handler: async (body, ctx) => {
      const version = await updateService(ctx.db, ctx.caller, body.service, body.effectiveFrom);
      ctx.reply.header('x-billrun-service-version', String(version));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/services/archive-service',
    role: 'admin',
    tag: 'pricing templates',
    summary: 'Archive or restore a pricing template',
    description: 'archiveStatus 1 archives (no new subscriptions or terms), 0 restores.',
    body: requestSchema(
      { method: 'Update', action: 'Archive Package' },
      { serviceCode: Code, archiveStatus: Type.Union([Type.Literal(0), Type.Literal(1)]) },
    ),
    data: Empty,
    handler: async (body, ctx) => {
      const found = await setArchiveStatus(ctx.db, ctx.caller.appCode, body.serviceCode, body.archiveStatus, ctx.caller.email);
      if (!found) throw notFound('pricing template', 'serviceCode');
      return {};
    },
  });
}
