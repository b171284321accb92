// The image's HEALTHCHECK: GET /healthz of this container's service on
// loopback. The gateway answers on PORT (default 3000); a worker on its
// metrics port, named by HEALTHCHECK_PORT (docker-compose.yml sets both).
// Exit 0 when it answers 200 within 3 s, 1 otherwise.
const port = process.env.HEALTHCHECK_PORT || process.env.PORT || '3000';
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
