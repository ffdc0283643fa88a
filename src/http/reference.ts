// The API reference page at /docs (Scalar, served from the installed package: no script
// or font from elsewhere). It shows only what works on a self-hosted install: Scalar's
// hosted-service buttons (the "Open API Client"/"Deploy" developer toolbar, "Ask AI", the
// "Generate MCP" server) are off, as is its telemetry. A reader pastes a token once
// (Authentication, the `token` scheme) and it is kept in the browser's local storage, so
// "Test Request" works on every operation; the token is sent to this server only.
import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';

export function referenceOptions(): FastifyApiReferenceOptions {
  return {
    routePrefix: '/docs',
    configuration: {
      pageTitle: 'billrun API',
      // Hosted services of Scalar's that a self-hosted install has no use for.
      hideClientButton: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      telemetry: false,
      withDefaultFonts: false,
      // The token, pasted once, is kept across reloads; login needs none.
      persistAuth: true,
      authentication: { preferredSecurityScheme: 'token' },
      documentDownloadType: 'json',
      showOperationId: true,
    },
  };
}
