import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../http/errors.ts';
import { Code } from '../rating/tariff.ts';
import { ServiceDefinition, ServiceRecord } from './schemas.ts';
import { makeService } from './makeService.ts';
import { updateService } from './updateService.ts';
import { listServices, setArchiveStatus } from './store.ts';
import { serviceRecord } from './serviceRecord.ts';

const Empty = Type.Object({});

export async function templateRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/services/make-service',
    envelope: { method: 'Create', action: 'Create Package' },
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
    envelope: { method: 'Retrieve', action: 'Retrieve Packages' },
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
    path: '/billing/services/update-service',
    envelope: { method: 'Update', action: 'Update Package' },
    role: 'admin',
    tag: 'pricing templates',
    summary: 'Update a pricing template',
    description: 'Replaces the definition of the template whose code is service.code with a new version. Existing terms keep their version.',
    body: requestSchema({ method: 'Update', action: 'Update Package' }, { service: ServiceDefinition }),
    data: Empty,
    handler: async (body, ctx) => {
      const version = await updateService(ctx.db, ctx.caller, body.service);
      ctx.reply.header('x-billrun-service-version', String(version));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/services/archive-service',
    envelope: { method: 'Update', action: 'Archive Package' },
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
