import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';

const FAVICON = fs.readFileSync(new URL('../web/client/favicon.svg', import.meta.url));

/**
 * The interactive reference at /docs: Swagger UI served from this server (no CDN), titled and
 * coloured as Signet, without the framework's top bar (its logo and "Explore" box, which would
 * let a reader load some other API's document into Signet's page).
 */
const THEME_CSS = `
.swagger-ui .topbar { display: none; }
body { background: #f8fafc; }
.swagger-ui .information-container { padding-top: 1.5rem; }
.swagger-ui .info .title { color: #1e1b4b; }
.swagger-ui .info .title::before {
  content: ''; display: inline-block; width: 1.6rem; height: 1.6rem; margin-right: 0.6rem; vertical-align: -0.2rem;
  border-radius: 7px; background: linear-gradient(135deg, #4338ca, #7c3aed);
}
.swagger-ui .btn.execute, .swagger-ui .btn.authorize { background: #4338ca; border-color: #4338ca; color: #fff; }
.swagger-ui .btn.authorize svg { fill: #fff; }
.swagger-ui a.nostyle, .swagger-ui .info a { color: #4338ca; }
`;

export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      persistAuthorization: true,
    },
    theme: {
      title: 'Signet API reference',
      css: [{ filename: 'signet.css', content: THEME_CSS }],
      favicon: [
        {
          filename: 'favicon.svg',
          rel: 'icon',
          sizes: 'any',
          type: 'image/svg+xml',
          content: FAVICON,
        },
      ],
    },
    logo: { type: 'image/svg+xml', content: FAVICON },
  });
}
