// Serves the built web console (console/dist, made by console/build.ts from npm install,
// npm start and npm test) at /console. Its pages route by the URL's hash, so only the
// index and the hashed assets are ever asked for.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

const DIST = path.resolve(import.meta.dirname, '../../console/dist');

const CONSOLE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "worker-src 'self' blob:",
  // A previewed PDF is a blob: frame, and the browser's viewer embeds it there, under this policy.
  "object-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export async function consoleRoutes(app: FastifyInstance, dist = DIST): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
  // The server's own address leads a person who types it to the console (a new user met a JSON 404 there).
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
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
      // The page runs only its own scripts and talks only to this server; no other site may
      // frame it (an attack framed the sign-in page). Styles inline: Mantine writes its
      // theme's variables into a <style> element. A previewed PDF is a blob: frame.
      if (file.endsWith('.html')) reply.header('content-security-policy', CONSOLE_POLICY);
    },
  });
}
