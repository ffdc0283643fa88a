// Serves the built web console (console/dist, made by console/build.ts from npm install,
// npm start and npm test) at /console. Its pages route by the URL's hash, so only the
// index and the hashed assets are ever asked for.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

const DIST = path.resolve(import.meta.dirname, '../../console/dist');

export async function consoleRoutes(app: FastifyInstance, dist = DIST): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    // An install without the build tools (npm install --omit=dev): say what to do rather than a bare 404.
    app.get('/console/*', { schema: { hide: true } }, async (_request, reply) => {
      reply.code(503).type('text/plain; charset=utf-8');
      return 'The console is not built. Run npm install (with dev dependencies): it builds console/dist.\n';
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/console/',
    index: 'index.html',
    wildcard: true,
    // Assets carry their content hash in their name; the index must be read afresh after a build.
    setHeaders: (reply, file) => {
      reply.header('cache-control', file.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
  });
}
