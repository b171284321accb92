import type { Telemetry } from 'bullmq';

/**
 * Whether this process traces: only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (and `OTEL_SDK_DISABLED` is not `true`). Off, no OpenTelemetry package is
 * loaded and queues and workers carry no telemetry.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

let telemetry: Telemetry | undefined;

/**
 * BullMQ's telemetry (bullmq-otel) for every Queue and Worker when tracing is
 * on: an add records the caller's trace context in the job, and the worker's
 * span for the job continues that trace. Undefined when tracing is off.
 */
export function queueTelemetry(): Telemetry | undefined {
  if (!tracingEnabled()) return undefined;
  if (!telemetry) {
    // Loaded only when tracing is on (a require, so it stays out of every start that does not trace).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');
    telemetry = new BullMQOtel('cowrie') as unknown as Telemetry;
  }
  return telemetry;
}
