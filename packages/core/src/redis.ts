import { Redis, Cluster, type RedisOptions } from 'ioredis';
import type { TConfig } from './config';

export type TRedis = Redis | Cluster;

type RedisConfig = Pick<TConfig, 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'REDIS_SENTINELS' | 'REDIS_SENTINEL_NAME'>;

function hostPort(entry: string): { host: string; port: number } {
  const [host = '127.0.0.1', port = '6379'] = entry.split(':');
  return { host, port: Number(port) };
}

/**
 * One ioredis connection from config: a single node (REDIS_URL), a Cluster
 * (REDIS_CLUSTER_NODES) or a Sentinel group (REDIS_SENTINELS). BullMQ needs
 * `maxRetriesPerRequest: null` on the connections its workers block on.
 */
export function createRedis(config: RedisConfig, options: { forBullmq?: boolean; name?: string } = {}): TRedis {
  const common: RedisOptions = {
    connectionName: options.name,
    maxRetriesPerRequest: options.forBullmq ? null : 3,
    enableReadyCheck: true,
    lazyConnect: false,
    // Commands issued in the same turn of the event loop (concurrent requests'
    // rate limits, say) leave in one write. Not on BullMQ's blocking connections.
    enableAutoPipelining: !options.forBullmq,
  };
  if (config.REDIS_CLUSTER_NODES.length > 0) {
    return new Cluster(config.REDIS_CLUSTER_NODES.map(hostPort), { redisOptions: common });
  }
  if (config.REDIS_SENTINELS.length > 0) {
    return new Redis({ ...common, sentinels: config.REDIS_SENTINELS.map(hostPort), name: config.REDIS_SENTINEL_NAME });
  }
  return new Redis(config.REDIS_URL, common);
}
