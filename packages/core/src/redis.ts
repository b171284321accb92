import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Redis, Cluster, type RedisOptions } from 'ioredis';
import type { Config } from './config';
import type { Logger } from './logger';

export type RedisClient = Redis | Cluster;

type RedisConfig = Pick<Config, 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'REDIS_SENTINELS' | 'REDIS_SENTINEL_NAME'> &
  Partial<Pick<Config, 'REDIS_USERNAME' | 'REDIS_PASSWORD' | 'REDIS_SENTINEL_PASSWORD' | 'REDIS_TLS' | 'REDIS_TLS_CA_FILE'>>;

function hostPort(entry: string): { host: string; port: number } {
  const [host = '127.0.0.1', port = '6379'] = entry.split(':');
  return { host, port: Number(port) };
}

/** TLS options when REDIS_TLS (or a CA file) asks for it: certificates are always verified. */
function tlsOptions(config: RedisConfig): ConnectionOptions | undefined {
  if (!config.REDIS_TLS && !config.REDIS_TLS_CA_FILE) return undefined;
  return config.REDIS_TLS_CA_FILE ? { ca: readFileSync(config.REDIS_TLS_CA_FILE) } : {};
}

/**
 * One ioredis connection from config: a single node (REDIS_URL), a Cluster
 * (REDIS_CLUSTER_NODES) or a Sentinel group (REDIS_SENTINELS), each with
 * REDIS_USERNAME / REDIS_PASSWORD and REDIS_TLS when set (a single node's
 * REDIS_URL credentials and rediss:// come first). BullMQ needs
 * `maxRetriesPerRequest: null` on the connections its workers block on.
 *
 * With a `logger`, connection errors (Redis restarting, a failover) are
 * logged as one structured warning per connection per 10 s while ioredis
 * reconnects, instead of ioredis's own unstructured console line per attempt.
 */
export function createRedis(config: RedisConfig, options: { forBullmq?: boolean; name?: string; logger?: Pick<Logger, 'warn'> } = {}): RedisClient {
  const client = connect(config, options);
  const { logger } = options;
  if (logger) {
    let loggedAt = 0;
    client.on('error', (err: Error) => {
      if (Date.now() - loggedAt < 10_000) return;
      loggedAt = Date.now();
      logger.warn({ connection: options.name, err: { message: err.message } }, 'redis connection error; reconnecting');
    });
  }
  return client;
}

/** The longest wait between two reconnect attempts. */
const REDIS_RECONNECT_MAX_DELAY_MS = 500;

function connect(config: RedisConfig, options: { forBullmq?: boolean; name?: string }): RedisClient {
  const tls = tlsOptions(config);
  const common: RedisOptions = {
    connectionName: options.name,
    maxRetriesPerRequest: options.forBullmq ? null : 3,
    // Reconnects 50 ms later per attempt, at most 500 ms apart (ioredis's default grows to 2 s): a command
    // waits for at most three attempts, so while Redis is down a request's 503 comes in about 1.5 s, not 6.
    retryStrategy: (attempt: number) => Math.min(attempt * 50, REDIS_RECONNECT_MAX_DELAY_MS),
    enableReadyCheck: true,
    lazyConnect: false,
    // Commands issued in the same turn of the event loop (concurrent requests'
    // rate limits, say) leave in one write. Not on BullMQ's blocking connections.
    enableAutoPipelining: !options.forBullmq,
    ...(config.REDIS_USERNAME ? { username: config.REDIS_USERNAME } : {}),
    ...(config.REDIS_PASSWORD ? { password: config.REDIS_PASSWORD } : {}),
    ...(tls ? { tls } : {}),
  };
  if (config.REDIS_CLUSTER_NODES.length > 0) {
    return new Cluster(config.REDIS_CLUSTER_NODES.map(hostPort), {
      redisOptions: common,
      // Managed TLS clusters (ElastiCache) announce IPs while their certificates
      // name hosts: connect by the name given, so the certificate check passes.
      ...(tls ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) } : {}),
    });
  }
  if (config.REDIS_SENTINELS.length > 0) {
    return new Redis({
      ...common,
      sentinels: config.REDIS_SENTINELS.map(hostPort),
      name: config.REDIS_SENTINEL_NAME,
      ...(config.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: config.REDIS_SENTINEL_PASSWORD } : {}),
      ...(tls ? { enableTLSForSentinelMode: true, sentinelTLS: tls } : {}),
    });
  }
  return new Redis(config.REDIS_URL, common);
}
