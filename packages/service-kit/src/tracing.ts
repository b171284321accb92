// Loaded first by each service's main (see services/*/src/tracing.ts), before
// anything it instruments (http, express, pg, ioredis, pino) is required. It
// imports nothing of Cowrie's but the one switch: with tracing off, no
// OpenTelemetry package is loaded at all.
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { IncomingMessage } from 'node:http';
import { tracingEnabled } from '@cowrie/core/src/queues/telemetry';

let sdk: NodeSDK | undefined;

/** Probes and scrapes are not traced: a trace per health check or scrape is noise. */
const UNTRACED_PATHS = /^\/(healthz|readyz|livez|metrics)(?:[/?]|$)/;

/**
 * Starts OpenTelemetry's Node SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` is set,
 * configured by the standard `OTEL_*` variables (the SDK reads them:
 * `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` (default) or `http/json`,
 * headers, sampler, resource attributes). `service.name` is `service` unless
 * `OTEL_SERVICE_NAME` names another. Only traces are exported: metrics stay
 * on Prometheus (metrics and logs exporters default to `none`), and logs stay
 * on stdout, with `trace_id` and `span_id` on every line written in a span.
 *
 * Instrumented: incoming and outgoing HTTP (the rails' and providers' calls
 * use got, over node:http; webhook deliveries use undici), express routes, pg and ioredis
 * (only inside a traced operation, so idle polling makes no traces), and
 * BullMQ through its telemetry option (@cowrie/core queueTelemetry).
 */
export function startTracing(service: string): void {
  if (sdk || !tracingEnabled()) return;
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { PinoInstrumentation } = require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');
  const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  /* eslint-enable @typescript-eslint/no-require-imports */
  sdk = new NodeSDK({
    ...(!process.env.OTEL_SERVICE_NAME?.trim() && { serviceName: service }),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED_PATHS.test(req.url ?? '') }),
      // Routers and handlers, not a span per middleware of every request.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisCommandText }),
      new PinoInstrumentation({ disableLogSending: true }),
      // Webhook deliveries are sent with undici (their own agent, for the address policy).
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
}

/**
 * What a Redis span records of its command: the name and its first argument
 * (a key, or a script's sha), with the count of the rest, never their values
 * (the default writes every argument of a script: a job's data, a limit's
 * counters), and only the name of a command that may carry a password.
 */
function redisCommandText(name: string, args: unknown[]): string {
  if (args.length === 0 || /^(AUTH|HELLO|ACL|CONFIG|MIGRATE)$/i.test(name)) return name;
  const first = typeof args[0] === 'string' || typeof args[0] === 'number' ? String(args[0]) : '[binary]';
  return args.length > 1 ? `${name} ${first} [${args.length - 1} other arguments]` : `${name} ${first}`;
}

/** Whether startTracing started tracing in this process. */
export function tracingStarted(): boolean {
  return sdk !== undefined;
}

/** Sends the spans still buffered, within `timeoutMs`; a no-op when tracing is off. Called before a service exits. */
export async function stopTracing(timeoutMs = 2000): Promise<void> {
  if (!sdk) return;
  const running = sdk;
  sdk = undefined;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    running.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}
