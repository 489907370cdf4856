/**
 * The ceiling of the `hot` scenario: one plain `node:http` process that does the least any server
 * answering these requests must do: read the request body, `JSON.parse` it (POST), and write the
 * same answer bytes Bellwether sent (read once from the files named on the command line), gzipped
 * ahead of time for a client that accepts gzip. `/_health` answers 200 for the bench's ready check.
 *
 * node ceiling.mjs <port> <path-prefix>=<answer file> ...
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { gzipSync } from 'node:zlib';

const [portText, ...routes] = process.argv.slice(2);
const answers = routes.map((route) => {
  const [prefix, file] = route.split('=');
  const body = readFileSync(file);
  return { prefix, body, gzipped: gzipSync(body) };
});

http
  .createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/_health') return response.end('ok');
      if (request.method === 'POST') JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const answer = answers.find((candidate) => request.url.startsWith(candidate.prefix));
      if (!answer) {
        response.statusCode = 404;
        return response.end();
      }
      const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
      response.setHeader('content-type', 'application/json; charset=utf-8');
      if (gzip) response.setHeader('content-encoding', 'gzip');
      response.end(gzip ? answer.gzipped : answer.body);
    });
  })
  .listen(Number(portText), '127.0.0.1');
