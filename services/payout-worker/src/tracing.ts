// Imported first by main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set)
// starts before the modules it instruments are loaded.
import { startTracing } from '@cowrie/service-kit/src/tracing';

startTracing('payout-worker');
